// Child process for mcp-fail-closed.test.ts: starts a runtime with one stdio MCP server and prints its status as JSON.
// Run with a PATH that lacks bubblewrap, the sandbox cannot start here (the sandbox is process-wide, so this needs its own process).
import { createRuntime } from "@cairn/api";
import { localWorkerScript } from "../support/cli.ts";

const [root, cairnHome, serverEntry, settings] = process.argv.slice(2);
if (!root || !cairnHome || !serverEntry || !settings) throw new Error("usage: mcp-fail-closed.child.ts <root> <cairnHome> <serverEntry> <settings>");

const runtime = await createRuntime({
  workerScript: localWorkerScript,
  workspaceRoot: root,
  cairnHome,
  version: "test",
  apiKey: "test",
  baseURL: "http://127.0.0.1:9",
  trusted: true,
  managedSettingsPath: `${cairnHome}/no-managed-settings.json`,
  flagSettings: settings,
  mcpConfig: [JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [serverEntry, "stdio"] } } })],
});
process.stdout.write(`${JSON.stringify(runtime.mcp.servers())}\n`);
await runtime.close();
