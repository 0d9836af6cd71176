// One API node of a distributed test, as its own process: `node --import tsx api-node.child.ts '<json options>'`.
// Prints "READY <url> <token>" once it serves; SIGTERM closes it gracefully (draining its sessions), SIGKILL does not.
import { startServer } from "@cairn/api";
import type { ApiNodeChildOptions } from "./api-node-process.ts";
import { localWorkerScript } from "./cli.ts";

// Written by api-node-process.ts in the same test run.
const options = JSON.parse(process.argv[2] ?? "{}") as ApiNodeChildOptions;

const server = await startServer({
  workerScript: localWorkerScript,
  workspace: options.workspace,
  cairnHome: options.cairnHome,
  homeDir: options.cairnHome,
  version: "0.0.0-test",
  apiKey: "test",
  baseURL: options.simUrl,
  model: "sim-model",
  port: 0,
  webDir: null,
  checkpoints: false,
  managedSettingsPath: `${options.cairnHome}/no-managed-settings.json`,
  maxRetries: 1,
  promptCaching: false,
  distributed: {
    databaseUrl: options.databaseUrl,
    redisUrl: options.redisUrl,
    workerUrls: [],
    nodeId: options.nodeId,
    ...(options.leaseTtlMs !== undefined ? { leaseTtlMs: options.leaseTtlMs } : {}),
    ...(options.drainTimeoutMs !== undefined ? { drainTimeoutMs: options.drainTimeoutMs } : {}),
  },
});
process.stdout.write(`READY ${server.url} ${server.token}\n`);
process.once("SIGTERM", () => {
  void server.close().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`close failed: ${String(error)}\n`);
      process.exit(1);
    },
  );
});
