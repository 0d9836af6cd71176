import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { cairnBin } from "./cli.ts";

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts the real `cairn worker --listen` (the bundle) and resolves once it says it is listening. */
export async function startWorkerProcess(options: { port: number; root: string; cwd: string; token: string }): Promise<ChildProcessWithoutNullStreams> {
  const child = spawn(process.execPath, [cairnBin, "worker", "--listen", `127.0.0.1:${options.port}`, "--root", options.root], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: options.cwd, CAIRN_HOME: join(options.cwd, "worker-home"), CAIRN_WORKER_TOKEN: options.token },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes("listening on ws://")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`cairn worker exited (${code}): ${stderr}`)));
  });
  return child;
}

export async function stopWorkerProcess(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  await exited;
}
