import { spawn, type ChildProcess } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

export type ApiNodeOptions = {
  nodeId: string;
  workspace: string;
  /** The node's own $CAIRN_HOME is made under this directory. */
  parent: string;
  simUrl: string;
  databaseUrl: string;
  redisUrl: string;
  leaseTtlMs?: number;
  drainTimeoutMs?: number;
};

/** What the child script is given: the options with the node's own home instead of the parent directory. */
export type ApiNodeChildOptions = Omit<ApiNodeOptions, "parent"> & { cairnHome: string };

/** An API node running in its own process (distributed mode), to be killed, paused or stopped like a real one. */
export type ApiNodeProcess = {
  nodeId: string;
  url: string;
  token: string;
  child: ChildProcess;
  /** Everything it wrote to stderr (its structured log lines). */
  stderr(): string;
  /** Resolves with the exit code or signal once the process has ended. */
  exited: Promise<string>;
  /** SIGKILL if still running (safe to call twice). */
  kill(): Promise<void>;
};

export async function startApiNode(options: ApiNodeOptions): Promise<ApiNodeProcess> {
  const cairnHome = join(options.parent, `home-${options.nodeId}`);
  // Its temporary folders too go under the parent, which the test removes: a node killed with SIGKILL cleans up nothing.
  const temporary = join(options.parent, `tmp-${options.nodeId}`);
  await Promise.all([mkdir(cairnHome, { recursive: true }), mkdir(temporary, { recursive: true })]);
  const { parent: _parent, ...rest } = options;
  const childOptions: ApiNodeChildOptions = { ...rest, cairnHome };
  const child = spawn(process.execPath, ["--import", "tsx", join(here, "api-node.child.ts"), JSON.stringify(childOptions)], {
    cwd: here,
    env: { ...process.env, TMPDIR: temporary },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  const exited = new Promise<string>((resolve) => child.once("exit", (code, signal) => resolve(signal ?? String(code))));
  const ready = await new Promise<{ url: string; token: string }>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      const match = /^READY (\S+) (\S+)$/.exec(line);
      if (match?.[1] && match[2]) resolve({ url: match[1], token: match[2] });
    });
    void exited.then((how) => reject(new Error(`node ${options.nodeId} exited (${how}) before it was ready: ${stderr}`)));
  });
  return {
    nodeId: options.nodeId,
    ...ready,
    child,
    stderr: () => stderr,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
