import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isStdioServerConfig, type McpRemoteServerConfig, type McpServerEntry } from "../mcp/config.ts";
import type { McpTransportFactory } from "../mcp/connection.ts";
import { McpError } from "../mcp/errors.ts";

/** How much of a stdio server's stderr is kept for diagnostics. */
const STDERR_TAIL_CHARS = 4_000;

export type NodeMcpTransportOptions = {
  /** Working directory of stdio servers: the workspace root. */
  cwd: string;
  /**
   * The environment a stdio server starts with, before its own `env`. Default: the MCP SDK's
   * scrubbed set (HOME, LOGNAME, PATH, SHELL, TERM, USER), so API keys and tokens in the server's
   * environment do not leak into third-party servers.
   */
  baseEnv?: Record<string, string>;
  /** Receives each server's stderr (default: kept as a short tail, see `stderrTail`). */
  onStderr?: (serverName: string, text: string) => void;
};

export type NodeMcpTransportFactory = McpTransportFactory & { stderrTail(serverName: string): string };

/**
 * Opens MCP transports in Node: stdio servers as child processes (not sandboxed: the worker
 * exports no way to wrap an arbitrary command, so they run with a scrubbed environment in the
 * workspace directory), Streamable HTTP and SSE servers over fetch with their configured headers.
 */
export function createNodeMcpTransportFactory(options: NodeMcpTransportOptions): NodeMcpTransportFactory {
  const tails = new Map<string, string>();
  const factory = async (entry: McpServerEntry): Promise<Transport> => {
    const config = entry.config;
    if (isStdioServerConfig(config)) {
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args ?? [],
        env: { ...(options.baseEnv ?? getDefaultEnvironment()), ...config.env },
        cwd: options.cwd,
        stderr: "pipe",
      });
      // A piped stderr that nobody reads would fill up and stall the server.
      transport.stderr?.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        options.onStderr?.(entry.name, text);
        tails.set(entry.name, ((tails.get(entry.name) ?? "") + text).slice(-STDERR_TAIL_CHARS));
      });
      return transport;
    }
    const remote = config as McpRemoteServerConfig;
    let url: URL;
    try {
      url = new URL(remote.url);
    } catch (error) {
      throw new McpError("invalid_config", `MCP server "${entry.name}" has an invalid url: ${remote.url}`, { serverName: entry.name, cause: error });
    }
    const requestInit: RequestInit = remote.headers ? { headers: remote.headers } : {};
    if (remote.type === "sse") return new SSEClientTransport(url, { requestInit });
    return new StreamableHTTPClientTransport(url, { requestInit });
  };
  return Object.assign(factory, { stderrTail: (serverName: string) => tails.get(serverName) ?? "" });
}
