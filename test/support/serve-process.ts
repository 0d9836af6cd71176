import { spawn, type ChildProcess } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { cairnBin } from "./cli.ts";

/** One `cairn serve --api-only` node run as its own process, as a deployment runs it. */
export type ServeProcess = {
  url: string;
  token: string;
  nodeId: string;
  home: string;
  child: ChildProcess;
  /** Everything the node wrote to stderr so far (its structured log lines among it). */
  stderr(): string;
  /** Everything the node wrote to stdout so far (its banner; what V8's `--trace-…` flags print). */
  stdout(): string;
  /** Sends a signal and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<void>;
};

export type ServeProcessOptions = {
  /** A parent directory; the node's HOME and CAIRN_HOME go under `<parent>/node-<id>`. */
  parent: string;
  nodeId: string;
  /** `--workspace`: a folder, or with worker URLs the workspace's name on the worker. */
  workspace: string;
  modelUrl: string;
  databaseUrl?: string;
  redisUrl?: string;
  workerUrls?: readonly string[];
  env?: Record<string, string>;
  /** Another build's `bin/cairn.js` (a benchmark's baseline); this checkout's by default. */
  bin?: string;
  /** Flags for the node process itself (before the script), e.g. `--cpu-prof`. */
  nodeArgs?: readonly string[];
  /** `--port` (default 0: a free one, known once the node prints it). */
  port?: number;
  /**
   * Let the node warm up before it reports ready, as `cairn serve` does by default (a few seconds of scratch
   * sessions). Off unless asked for: the tests start many nodes and measure nothing that depends on it.
   */
  warmUp?: boolean;
};

export const SERVE_TOKEN = "distributed-test-token-0123456789";

/**
 * Starts `cairn serve --api-only --port 0` with a fixed token and a clean environment (PATH, its own HOME and
 * CAIRN_HOME, the model simulator as the model), and resolves with its loopback URL once it listens.
 */
export async function startServeProcess(options: ServeProcessOptions): Promise<ServeProcess> {
  const home = join(options.parent, `node-${options.nodeId}`);
  await mkdir(home, { recursive: true });
  const script = [
    options.bin ?? cairnBin,
    "serve",
    "--api-only",
    "--port",
    String(options.port ?? 0),
    "--workspace",
    options.workspace,
    "--node-id",
    options.nodeId,
  ];
  const args = [...(options.nodeArgs ?? []), ...script];
  if (options.databaseUrl) args.push("--database-url", options.databaseUrl);
  if (options.redisUrl) args.push("--redis-url", options.redisUrl);
  for (const url of options.workerUrls ?? []) args.push("--worker-url", url);
  const child = spawn(process.execPath, args, {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      CAIRN_HOME: join(home, ".cairn"),
      ANTHROPIC_BASE_URL: options.modelUrl,
      ANTHROPIC_API_KEY: "test",
      CAIRN_MODEL: "sim-model",
      CAIRN_TOKEN: SERVE_TOKEN,
      CAIRN_MAX_RETRIES: "1",
      CAIRN_WARM_UP: options.warmUp ? "on" : "off",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  let stdout = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /also at (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout);
      if (match?.[1]) {
        child.stdout?.off("data", onData);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code, signal) => reject(new Error(`cairn serve (${options.nodeId}) exited (${code ?? signal}) before listening:\n${stderr}`)));
  });
  return {
    url,
    token: SERVE_TOKEN,
    nodeId: options.nodeId,
    home,
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill(signal);
      });
    },
  };
}
