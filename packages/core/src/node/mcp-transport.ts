import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isStdioServerConfig, type McpRemoteServerConfig, type McpServerEntry } from "../mcp/config.ts";
import type { McpLaunchInfo, McpTransportFactory } from "../mcp/connection.ts";
import { McpError } from "../mcp/errors.ts";

/** How much of a stdio server's stderr is kept for diagnostics. */
const STDERR_TAIL_CHARS = 4_000;

/** What a launcher is asked to start: a stdio MCP server's program in the workspace. */
export type StdioLaunchRequest = {
  serverName: string;
  command: string;
  args: string[];
  /** The server's own `env` from its configuration (already expanded). */
  serverEnv: Record<string, string>;
  /** The scrubbed environment an unsandboxed server gets beneath `serverEnv`. */
  baseEnv: Record<string, string>;
  cwd: string;
};

/** The process to spawn for a stdio server; `dispose` runs once the process has exited or never started. */
export type StdioLaunch = {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  info: McpLaunchInfo;
  dispose(): Promise<void>;
};

/**
 * Decides how a stdio server runs, e.g. wrapped in the worker's sandbox (the composition root wires
 * `@cairn/worker`'s `createSandboxedCommand` here; core cannot import it).
 */
export type StdioLauncher = (request: StdioLaunchRequest) => Promise<StdioLaunch>;

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
  /** Starts stdio servers another way (the sandbox); without it they run directly with `baseEnv`. */
  wrapStdio?: StdioLauncher;
};

export type NodeMcpTransportFactory = McpTransportFactory & {
  stderrTail(serverName: string): string;
  launchInfo(serverName: string): McpLaunchInfo | undefined;
};

/**
 * Opens MCP transports in Node: stdio servers as child processes in the workspace directory
 * (through `wrapStdio` when given, which the runtime uses to put them in the sandbox; otherwise
 * directly, with a scrubbed environment), Streamable HTTP and SSE servers over fetch with their
 * configured headers.
 */
export function createNodeMcpTransportFactory(options: NodeMcpTransportOptions): NodeMcpTransportFactory {
  const tails = new Map<string, string>();
  const launches = new Map<string, McpLaunchInfo>();
  const factory = async (entry: McpServerEntry): Promise<Transport> => {
    const config = entry.config;
    if (isStdioServerConfig(config)) {
      // Loaded on the first connection, like the rest of the MCP SDK (see mcp/sdk.ts).
      const { getDefaultEnvironment, StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
      const baseEnv = options.baseEnv ?? getDefaultEnvironment();
      const request: StdioLaunchRequest = {
        serverName: entry.name,
        command: config.command,
        args: config.args ?? [],
        serverEnv: config.env ?? {},
        baseEnv,
        cwd: options.cwd,
      };
      const launch: StdioLaunch = options.wrapStdio
        ? await options.wrapStdio(request)
        : {
            command: request.command,
            args: request.args,
            env: { ...baseEnv, ...request.serverEnv },
            cwd: request.cwd,
            info: { sandboxed: false },
            dispose: async () => undefined,
          };
      launches.set(entry.name, launch.info);
      const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: launch.env, cwd: launch.cwd, stderr: "pipe" });
      disposeWhenClosed(transport, launch.dispose);
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
    if (remote.type === "sse") {
      const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
      return new SSEClientTransport(url, { requestInit });
    }
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    return new StreamableHTTPClientTransport(url, { requestInit });
  };
  return Object.assign(factory, {
    stderrTail: (serverName: string) => tails.get(serverName) ?? "",
    launchInfo: (serverName: string) => launches.get(serverName),
  });
}

/**
 * Runs `dispose` once, when the server process is gone: on its close event (the MCP client chains
 * its own handler after this one) or after `close()`, whichever comes first.
 */
function disposeWhenClosed(transport: StdioClientTransport, dispose: () => Promise<void>): void {
  let disposed: Promise<void> | undefined;
  const once = () => (disposed ??= dispose().catch(() => undefined));
  transport.onclose = () => void once();
  const close = transport.close.bind(transport);
  transport.close = async () => {
    try {
      await close();
    } finally {
      await once();
    }
  };
}
