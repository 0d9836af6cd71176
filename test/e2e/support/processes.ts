import { spawn, type ChildProcess } from "node:child_process";

/** A child process started in its own process group, so stopping it also stops what it started (STACK.md P7). */
export type Started = { child: ChildProcess; output(): string; stop(): Promise<void> };

/**
 * Starts `args` with node and waits until its stdout matches `ready`; rejects with the output so far when the
 * process exits first or `timeoutMs` passes.
 */
export async function startNode(options: {
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  ready: RegExp;
  timeoutMs: number;
  name: string;
}): Promise<{ started: Started; match: RegExpExecArray }> {
  const child = spawn(process.execPath, options.args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  const started: Started = {
    child,
    output: () => output,
    stop: () => stopGroup(child),
  };
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${options.name} was not ready after ${options.timeoutMs} ms. Output:\n${output}`)), options.timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const found = options.ready.exec(output);
      if (found) {
        cleanup();
        resolve(found);
      }
    };
    const onExit = (code: number | null) => fail(new Error(`${options.name} exited with code ${code} before it was ready. Output:\n${output}`));
    const cleanup = () => {
      clearTimeout(timer);
      child.off("exit", onExit);
    };
    const fail = (error: Error) => {
      cleanup();
      void stopGroup(child).finally(() => reject(error));
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.once("exit", onExit);
  });
  return { started, match };
}

/** SIGKILL to the whole group at once (a machine that dies: no shutdown code runs); resolves once the process is gone. */
export function killGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const pid = child.pid;
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    process.kill(-pid, "SIGKILL");
  });
}

/** SIGTERM to the whole group, SIGKILL if it has not exited within 10 s. */
export function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const pid = child.pid;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}
