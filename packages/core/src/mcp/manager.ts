import type { GetPromptResult, Prompt, ReadResourceResult, Resource } from "@modelcontextprotocol/sdk/types.js";
import type { ConversationMessage } from "../schema/messages.ts";
import type { AppState, McpServerStatus } from "../state/app-state.ts";
import type { Tool } from "../tools/tool.ts";
import { expandServerConfig, isStdioServerConfig, requiresTrust, type McpConfigProblem, type McpServerEntry } from "./config.ts";
import {
  defaultReconnectPolicy,
  McpConnection,
  type McpCallOptions,
  type McpLaunchInfo,
  type McpReconnectPolicy,
  type McpToolDefinition,
  type McpTransportFactory,
} from "./connection.ts";
import { McpError } from "./errors.ts";
import { createMcpTool, DEFAULT_MCP_TOOL_TIMEOUT_MS } from "./mcp-tool.ts";
import { findMcpServerConnection } from "./names.ts";
import { createToolSearchTool, planToolExposure, toolsWithDiscovered } from "./tool-search.ts";

export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 30_000;

export type McpManagerOptions = {
  servers: readonly McpServerEntry[];
  /** Servers from the workspace's own files start only when this is true (see `setTrusted`). */
  trusted: boolean;
  transportFactory: McpTransportFactory;
  clientInfo: { name: string; version: string };
  /** Variables for `${VAR}` expansion in server configs. */
  env: Readonly<Record<string, string | undefined>>;
  /** Status changes are written into `mcp.servers` of this state. */
  setAppState?: (update: (state: AppState) => AppState) => void;
  toolTimeoutMs?: number;
  connectTimeoutMs?: number;
  reconnect?: Partial<McpReconnectPolicy>;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Per-result character budget for MCP tools (default: the pipeline's). */
  maxResultChars?: number;
  /** Problems found while reading the configuration, reported with the statuses. */
  problems?: readonly McpConfigProblem[];
};

export type McpTransportKind = "stdio" | "http" | "sse";

export type McpServerInfo = {
  name: string;
  source: McpServerEntry["source"];
  transport: McpTransportKind;
  status: McpServerStatus;
  tools: string[];
  /** A project server waiting for the workspace to be trusted (its status is `disabled` until then). */
  needsTrust: boolean;
  /** How a stdio server's process was last started (sandboxed or not, and why not). */
  launch?: McpLaunchInfo;
};
export type McpToolSet = { tools: Tool[]; deferred: Tool[]; estimatedTokens: number };

/**
 * All MCP servers of a runtime: starts them (project servers only in a trusted workspace),
 * publishes each one's status into app state, adapts their tools, and serves resources and
 * prompts to the UI. One process per stdio server for the whole runtime, shared by its sessions.
 */
export class McpManager {
  private readonly options: McpManagerOptions;
  private readonly connections: McpConnection[] = [];
  private readonly pendingTrust: McpServerEntry[] = [];
  private readonly toolCache = new WeakMap<McpToolDefinition, Tool>();
  private readonly listeners = new Set<() => void>();
  private readonly problemList: McpConfigProblem[];
  private closed = false;

  constructor(options: McpManagerOptions) {
    this.options = options;
    this.problemList = [...(options.problems ?? [])];
    for (const entry of options.servers) {
      if (requiresTrust(entry.source) && !options.trusted) this.pendingTrust.push(entry);
      else this.add(entry);
    }
    this.publish();
  }

  /** Configuration problems: unreadable files, invalid entries, unset variables. */
  get problems(): readonly McpConfigProblem[] {
    return this.problemList;
  }

  /** Connects every enabled server in parallel; resolves when each is connected or has failed. */
  async start(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.connect()));
  }

  /** The workspace was trusted: start its project servers too. */
  async setTrusted(trusted: boolean): Promise<void> {
    if (!trusted || this.closed) return;
    const entries = this.pendingTrust.splice(0);
    await Promise.all(entries.map((entry) => this.add(entry).connect()));
  }

  servers(): McpServerInfo[] {
    const active = this.connections.map((connection): McpServerInfo => {
      const launch = connection.launchInfo;
      return {
        name: connection.name,
        source: connection.entry.source,
        transport: transportKind(connection.entry),
        status: connection.status,
        tools: connection.tools.map((tool) => tool.name),
        needsTrust: false,
        ...(launch ? { launch } : {}),
      };
    });
    const waiting = this.pendingTrust.map(
      (entry): McpServerInfo => ({
        name: entry.name,
        source: entry.source,
        transport: transportKind(entry),
        status: { state: "disabled" },
        tools: [],
        needsTrust: true,
      }),
    );
    return [...active, ...waiting];
  }

  /**
   * Drops a server's connection and connects it again now; resolves with its info once connected or
   * failed. A server waiting for trust, or unknown, is an `unknown_server` / `not_connected` error.
   */
  async reconnect(serverName: string): Promise<McpServerInfo> {
    if (this.pendingTrust.some((entry) => entry.name === serverName)) {
      throw new McpError("not_connected", `MCP server "${serverName}" starts only once the workspace is trusted.`, { serverName });
    }
    await this.connection(serverName).restart();
    const info = this.servers().find((server) => server.name === serverName);
    if (!info) throw new McpError("unknown_server", `No MCP server named "${serverName}".`, { serverName });
    return info;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every tool of every server that has listed its tools. */
  allTools(): Tool[] {
    return this.connections.flatMap((connection) => connection.tools.map((definition) => this.toolFor(connection, definition)));
  }

  /**
   * The MCP tools to offer: all of them, or, when their schemas would take more than the allowed
   * share of the context window, ToolSearch plus the tools it loaded earlier in `history`.
   */
  toolSet(options: { contextWindowTokens: number; share?: number; history?: readonly ConversationMessage[] }): McpToolSet {
    const all = this.allTools();
    const plan = planToolExposure(all, options);
    if (plan.deferred.length === 0) return { tools: plan.exposed, deferred: [], estimatedTokens: plan.estimatedTokens };
    const search = createToolSearchTool(() => plan.deferred);
    return { tools: toolsWithDiscovered([search], plan.deferred, options.history ?? []), deferred: plan.deferred, estimatedTokens: plan.estimatedTokens };
  }

  async listResources(serverName: string, signal?: AbortSignal): Promise<Resource[]> {
    return this.connection(serverName).listResources(signal);
  }

  async listPrompts(serverName: string, signal?: AbortSignal): Promise<Prompt[]> {
    return this.connection(serverName).listPrompts(signal);
  }

  async readResource(serverName: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    return this.connection(serverName).readResource(uri, signal);
  }

  async getPrompt(serverName: string, promptName: string, args: Record<string, string> = {}, signal?: AbortSignal): Promise<GetPromptResult> {
    return this.connection(serverName).getPrompt(promptName, args, signal);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.connections.map((connection) => connection.close()));
    this.listeners.clear();
  }

  private connection(serverName: string): McpConnection {
    const found = this.connections.find((connection) => connection.name === serverName);
    if (!found) throw new McpError("unknown_server", `No MCP server named "${serverName}".`, { serverName });
    return found;
  }

  private add(entry: McpServerEntry): McpConnection {
    const expanded = expandServerConfig(entry.config, this.options.env);
    const connection = new McpConnection({
      entry: { ...entry, config: expanded.config },
      transportFactory: this.options.transportFactory,
      clientInfo: this.options.clientInfo,
      connectTimeoutMs: this.options.connectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS,
      reconnect: { ...defaultReconnectPolicy, ...this.options.reconnect },
      sleep: this.options.sleep,
      onChange: () => this.publish(),
    });
    if (expanded.missing.length > 0) {
      this.problemList.push({
        source: entry.source,
        file: "",
        server: entry.name,
        message: `environment variable${expanded.missing.length === 1 ? "" : "s"} not set: ${expanded.missing.join(", ")}`,
      });
    }
    this.connections.push(connection);
    return connection;
  }

  private toolFor(connection: McpConnection, definition: McpToolDefinition): Tool {
    const cached = this.toolCache.get(definition);
    if (cached) return cached;
    const tool = createMcpTool({
      serverName: connection.name,
      definition,
      call: (toolName, mcpToolName, args, options) => this.callTool(toolName, mcpToolName, args, options),
      timeoutMs: toolTimeout(connection.entry) ?? this.options.toolTimeoutMs ?? DEFAULT_MCP_TOOL_TIMEOUT_MS,
      ...(this.options.maxResultChars === undefined ? {} : { maxResultChars: this.options.maxResultChars }),
    });
    this.toolCache.set(definition, tool);
    return tool;
  }

  private callTool(toolName: string, mcpToolName: string, args: Record<string, unknown>, options: McpCallOptions) {
    const connection = findMcpServerConnection(toolName, this.connections);
    if (!connection) return Promise.reject(new McpError("unknown_server", `No MCP server provides ${toolName}.`));
    return connection.callTool(mcpToolName, args, options);
  }

  private publish(): void {
    const servers = Object.fromEntries(this.servers().map((server) => [server.name, server.status]));
    this.options.setAppState?.((state) => ({ ...state, mcp: { ...state.mcp, servers } }));
    for (const listener of this.listeners) listener();
  }
}

function transportKind(entry: McpServerEntry): McpTransportKind {
  if (isStdioServerConfig(entry.config)) return "stdio";
  return entry.config.type === "sse" ? "sse" : "http";
}

/** A per-server `timeout` (ms) in the config overrides the default tool-call timeout. */
function toolTimeout(entry: McpServerEntry): number | undefined {
  const value = (entry.config as { timeout?: unknown }).timeout;
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
}
