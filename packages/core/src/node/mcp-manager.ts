import { abortableSleep } from "../loop/deps.ts";
import { McpManager, type McpManagerOptions } from "../mcp/manager.ts";
import type { MergedSettings } from "../permissions/settings-merge.ts";
import { loadMcpServers } from "./mcp-config.ts";
import { createNodeMcpTransportFactory, type NodeMcpTransportOptions, type StdioLauncher } from "./mcp-transport.ts";

export type NodeMcpManagerOptions = Pick<
  McpManagerOptions,
  "trusted" | "setAppState" | "toolTimeoutMs" | "connectTimeoutMs" | "reconnect" | "maxResultChars"
> & {
  workspaceRoot: string;
  version: string;
  settingsServers?: MergedSettings["mcpServers"];
  mcpConfig?: readonly string[];
  /** Where relative `--mcp-config` paths start (default: the workspace root). */
  cwd?: string;
  /** Variables for `${VAR}` expansion (default: this process's environment). */
  env?: Readonly<Record<string, string | undefined>>;
  transport?: Omit<NodeMcpTransportOptions, "cwd" | "wrapStdio">;
  /** Starts stdio servers another way: the runtime passes the worker's sandbox here. */
  wrapStdio?: StdioLauncher;
};

/** Reads the MCP configuration and builds the manager with Node transports; call `start()` to connect. */
export async function createNodeMcpManager(options: NodeMcpManagerOptions): Promise<McpManager> {
  const loaded = await loadMcpServers({
    workspaceRoot: options.workspaceRoot,
    ...(options.settingsServers ? { settingsServers: options.settingsServers } : {}),
    ...(options.mcpConfig ? { mcpConfig: options.mcpConfig } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  return new McpManager({
    servers: loaded.servers,
    problems: loaded.problems,
    trusted: options.trusted,
    transportFactory: createNodeMcpTransportFactory({
      cwd: options.workspaceRoot,
      ...options.transport,
      ...(options.wrapStdio ? { wrapStdio: options.wrapStdio } : {}),
    }),
    clientInfo: { name: "cairn", version: options.version },
    env: options.env ?? process.env,
    sleep: abortableSleep,
    ...(options.setAppState ? { setAppState: options.setAppState } : {}),
    ...(options.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: options.toolTimeoutMs }),
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    ...(options.reconnect ? { reconnect: options.reconnect } : {}),
    ...(options.maxResultChars === undefined ? {} : { maxResultChars: options.maxResultChars }),
  });
}
