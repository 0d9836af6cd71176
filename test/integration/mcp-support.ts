import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { McpManager } from "@cairn/core";
import { repoRoot } from "../support/cli.ts";

/** Helpers for the mcp-*.test.ts integration tests: the real MCP servers installed from npm. */

function serverEntry(name: string): string {
  const path = join(repoRoot, "node_modules", "@modelcontextprotocol", name, "dist", "index.js");
  if (!existsSync(path)) throw new Error(`${name} is not installed (devDependency of @cairn/test): ${path}`);
  return path;
}

export const everythingServer = serverEntry("server-everything");
export const filesystemServer = serverEntry("server-filesystem");

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export type HttpEverything = { url: string; process: ChildProcess; close(): Promise<void> };

/** server-everything in its Streamable HTTP mode on a free port; resolves once it says it listens. */
export async function startHttpEverything(): Promise<HttpEverything> {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingServer, "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.resume();
  await new Promise<void>((resolve, reject) => {
    let stderr = "";
    const onData = (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(`listening on port ${port}`)) {
        child.stderr!.off("data", onData);
        child.stderr!.resume();
        resolve();
      }
    };
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server-everything (http) exited with ${code}: ${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    process: child,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/** Resolves when `condition` holds after a status change of the manager (or at once). */
export function whenServers(manager: McpManager, condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (condition()) return resolve();
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`MCP status condition not met in ${timeoutMs} ms: ${JSON.stringify(manager.servers())}`));
    }, timeoutMs);
    const stop = manager.subscribe(() => {
      if (!condition()) return;
      clearTimeout(timer);
      stop();
      resolve();
    });
  });
}

export function statusOf(manager: McpManager, name: string) {
  return manager.servers().find((server) => server.name === name)?.status;
}
