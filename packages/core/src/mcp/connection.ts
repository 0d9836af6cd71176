import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerStatus } from "../state/app-state.ts";
import type { McpServerEntry } from "./config.ts";
import { McpError } from "./errors.ts";
import { JsonRpcErrorCode, loadedMcpSdk, loadMcpSdk, sdkErrorCode } from "./sdk.ts";

export type { McpToolDefinition };

/** How a stdio server was started: in the sandbox or not, and why not. */
export type McpLaunchInfo = { sandboxed: boolean; warning?: string };

/** Opens the transport for one server: stdio (Node), Streamable HTTP or SSE. */
export type McpTransportFactory = ((entry: McpServerEntry) => Promise<Transport>) & {
  /** What the server last wrote to stderr, to explain a failure. */
  stderrTail?(serverName: string): string;
  /** How the server's process was last started (stdio servers only). */
  launchInfo?(serverName: string): McpLaunchInfo | undefined;
};

export type McpReconnectPolicy = {
  /** Delay before the first reconnect attempt; doubles per attempt up to `maxDelayMs`. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** Attempts after a connection dies; a later call starts a new round. */
  maxAttempts: number;
};

export const defaultReconnectPolicy: McpReconnectPolicy = { initialDelayMs: 1_000, maxDelayMs: 30_000, maxAttempts: 5 };

export type McpConnectionOptions = {
  entry: McpServerEntry;
  transportFactory: McpTransportFactory;
  clientInfo: { name: string; version: string };
  connectTimeoutMs: number;
  reconnect: McpReconnectPolicy;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Called after every status or tool-list change. */
  onChange: () => void;
};

export type McpCallOptions = {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
};

/**
 * One MCP server: connects, keeps the last tool list, reconnects with exponential backoff when a
 * connection that worked dies (a bounded number of times per round), and turns every failure of a
 * call into an `McpError` with a code. Never throws from a background event.
 */
export class McpConnection {
  readonly name: string;
  readonly entry: McpServerEntry;
  private readonly options: McpConnectionOptions;
  private readonly lifetime = new AbortController();
  private client: Client | undefined;
  private state: McpServerStatus = { state: "connecting" };
  private toolList: readonly McpToolDefinition[] = [];
  private everConnected = false;
  private reconnecting: Promise<void> | undefined;
  private round: AbortController | undefined;
  private restarting: Promise<void> | undefined;

  constructor(options: McpConnectionOptions) {
    this.options = options;
    this.entry = options.entry;
    this.name = options.entry.name;
  }

  get status(): McpServerStatus {
    return this.state;
  }

  /** The tools of the last successful listing; kept while reconnecting so tool names stay stable. */
  get tools(): readonly McpToolDefinition[] {
    return this.toolList;
  }

  get connected(): boolean {
    return this.client !== undefined && this.state.state === "connected";
  }

  /** The first connection. Resolves once connected or failed; never rejects. */
  async connect(): Promise<void> {
    if (this.lifetime.signal.aborted) return;
    this.setStatus({ state: "connecting" });
    try {
      await this.open();
      this.setStatus(this.connectedStatus());
    } catch (error) {
      this.setStatus({ state: "failed", reason: this.failureReason(error) });
    }
  }

  disable(): void {
    this.lifetime.abort();
    const client = this.client;
    this.client = undefined;
    this.toolList = [];
    this.setStatus({ state: "disabled" });
    void client?.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.lifetime.abort();
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
    await this.reconnecting?.catch(() => undefined);
  }

  async callTool(toolName: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    const client = this.requireClient();
    try {
      const result = await client.callTool({ name: toolName, arguments: args }, undefined, {
        signal: options.signal,
        timeout: options.timeoutMs,
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
      });
      // `toolResult` is the pre-2024-11 shape; show it as text rather than dropping it.
      if (!("content" in result)) return { content: [{ type: "text", text: JSON.stringify(result.toolResult) }] };
      return result as CallToolResult;
    } catch (error) {
      if (!options.signal.aborted && isTransportFailure(error)) this.dropClient(client);
      throw this.callError(error, options, `calling ${toolName}`);
    }
  }

  async listResources(signal?: AbortSignal): Promise<Resource[]> {
    const client = this.requireClient();
    if (!client.getServerCapabilities()?.resources) return [];
    const resources: Resource[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await client.listResources(cursor === undefined ? undefined : { cursor }, signal ? { signal } : undefined);
        resources.push(...page.resources);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
    } catch (error) {
      throw this.callError(error, { signal }, "listing resources");
    }
    return resources;
  }

  async listPrompts(signal?: AbortSignal): Promise<Prompt[]> {
    const client = this.requireClient();
    if (!client.getServerCapabilities()?.prompts) return [];
    const prompts: Prompt[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await client.listPrompts(cursor === undefined ? undefined : { cursor }, signal ? { signal } : undefined);
        prompts.push(...page.prompts);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
    } catch (error) {
      throw this.callError(error, { signal }, "listing prompts");
    }
    return prompts;
  }

  async readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    const client = this.requireClient();
    try {
      return await client.readResource({ uri }, signal ? { signal } : undefined);
    } catch (error) {
      throw this.callError(error, { signal }, `reading ${uri}`);
    }
  }

  async getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal): Promise<GetPromptResult> {
    const client = this.requireClient();
    try {
      return await client.getPrompt({ name, arguments: args }, signal ? { signal } : undefined);
    } catch (error) {
      throw this.callError(error, { signal }, `getting prompt ${name}`);
    }
  }

  private requireClient(): Client {
    if (this.state.state === "disabled") {
      throw new McpError("not_connected", `MCP server "${this.name}" is disabled.`, { serverName: this.name });
    }
    if (this.client && this.state.state === "connected") return this.client;
    // A server that gave up reconnecting gets a new round when someone needs it again.
    if (this.everConnected && !this.reconnecting && !this.lifetime.signal.aborted) this.scheduleReconnect();
    const reason = this.state.state === "failed" ? ` (${this.state.reason})` : "";
    const retry = this.reconnecting ? " Cairn is reconnecting to it; try again in a moment." : "";
    throw new McpError("not_connected", `MCP server "${this.name}" is not connected${reason}.${retry}`, { serverName: this.name });
  }

  private async open(): Promise<void> {
    const { Client } = await loadMcpSdk();
    const transport = await this.options.transportFactory(this.entry);
    const client = new Client(this.options.clientInfo, {
      capabilities: {},
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (error || !tools || this.client !== client) return;
            this.toolList = tools;
            if (this.state.state === "connected") this.setStatus(this.connectedStatus());
          },
        },
      },
    });
    client.onclose = () => this.handleClose(client);
    // Stray transport errors (a malformed line, a failed SSE reconnect) surface through the calls; keep them off stderr.
    client.onerror = () => undefined;
    try {
      const signal = this.lifetime.signal;
      await client.connect(transport, { timeout: this.options.connectTimeoutMs, signal });
      const tools: McpToolDefinition[] = [];
      if (client.getServerCapabilities()?.tools) {
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: this.options.connectTimeoutMs, signal });
          tools.push(...page.tools);
          cursor = page.nextCursor;
        } while (cursor !== undefined);
      }
      if (signal.aborted) throw new McpError("aborted", "closed while connecting", { serverName: this.name });
      this.client = client;
      this.toolList = tools;
      this.everConnected = true;
    } catch (error) {
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      throw error;
    }
  }

  /** A request failed below the protocol (an HTTP server went away): treat it like a closed connection. */
  private dropClient(client: Client): void {
    void client.close().catch(() => undefined);
    this.handleClose(client);
  }

  private handleClose(client: Client): void {
    if (this.client !== client || this.lifetime.signal.aborted) return;
    this.client = undefined;
    this.setStatus({ state: "failed", reason: "the connection closed" });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.reconnecting) return;
    const { initialDelayMs, maxDelayMs, maxAttempts } = this.options.reconnect;
    const round = new AbortController();
    this.round = round;
    const signal = AbortSignal.any([this.lifetime.signal, round.signal]);
    // The round is over before its last status is published, so a listener may start the next one.
    const finish = (status: McpServerStatus) => {
      this.reconnecting = undefined;
      this.setStatus(status);
    };
    const running: Promise<void> = (async () => {
      let lastReason = "the connection closed";
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        await this.options.sleep(Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1)), signal);
        this.setStatus({ state: "connecting" });
        try {
          await this.open();
          if (signal.aborted) return;
          return finish(this.connectedStatus());
        } catch (error) {
          if (signal.aborted) return;
          lastReason = this.failureReason(error);
          this.setStatus({ state: "failed", reason: `reconnect attempt ${attempt} of ${maxAttempts} failed: ${lastReason}` });
        }
      }
      finish({ state: "failed", reason: `gave up after ${maxAttempts} reconnect attempts: ${lastReason}` });
    })()
      // Aborted by close() or restart(): nothing to report.
      .catch(() => undefined)
      .finally(() => {
        if (this.reconnecting === running) this.reconnecting = undefined;
      });
    this.reconnecting = running;
  }

  /**
   * Drops the current connection, if any, and connects again now (the UI's "Reconnect"): a pending
   * backoff round is cancelled first. Resolves once connected or failed; never rejects.
   */
  restart(): Promise<void> {
    this.restarting ??= (async () => {
      if (this.lifetime.signal.aborted || this.state.state === "disabled") return;
      this.round?.abort();
      await this.reconnecting;
      const client = this.client;
      // No longer current: its close event is not a failure to recover from.
      this.client = undefined;
      await client?.close().catch(() => undefined);
      await this.connect();
    })().finally(() => {
      this.restarting = undefined;
    });
    return this.restarting;
  }

  /** Connected, with the launcher's warning when a stdio server could not be sandboxed. */
  private connectedStatus(): McpServerStatus {
    const warning = this.options.transportFactory.launchInfo?.(this.name)?.warning;
    return { state: "connected", toolCount: this.toolList.length, ...(warning ? { warning } : {}) };
  }

  /** How the server's process was started (stdio servers); undefined for remote servers. */
  get launchInfo(): McpLaunchInfo | undefined {
    return this.options.transportFactory.launchInfo?.(this.name);
  }

  private failureReason(error: unknown): string {
    const tail = this.options.transportFactory.stderrTail?.(this.name).trim().split("\n").slice(-3).join(" | ");
    return tail ? `${describeError(error)} (stderr: ${tail.slice(-500)})` : describeError(error);
  }

  private setStatus(status: McpServerStatus): void {
    if (this.state.state === "disabled" && status.state !== "disabled") return;
    this.state = status;
    this.options.onChange();
  }

  private callError(error: unknown, options: { signal?: AbortSignal | undefined; timeoutMs?: number }, doing: string): McpError {
    if (error instanceof McpError) return error;
    const serverName = this.name;
    if (options.signal?.aborted) return new McpError("aborted", `${doing} on MCP server "${serverName}" was interrupted.`, { serverName, cause: error });
    const code = sdkErrorCode(error);
    if (code !== undefined) {
      if (code === JsonRpcErrorCode.RequestTimeout) {
        const after = options.timeoutMs === undefined ? "" : ` after ${formatMs(options.timeoutMs)}`;
        return new McpError("timeout", `MCP server "${serverName}" timed out${after} while ${doing}.`, { serverName, cause: error });
      }
      if (code === JsonRpcErrorCode.ConnectionClosed) {
        return new McpError("disconnected", `MCP server "${serverName}" disconnected while ${doing}.`, { serverName, cause: error });
      }
      return new McpError("protocol_error", `MCP server "${serverName}" returned an error while ${doing}: ${(error as Error).message}`, {
        serverName,
        cause: error,
      });
    }
    if (!this.client) return new McpError("disconnected", `MCP server "${serverName}" disconnected while ${doing}.`, { serverName, cause: error });
    return new McpError("protocol_error", `MCP server "${serverName}" failed while ${doing}: ${describeError(error)}`, { serverName, cause: error });
  }
}

/** Fetch failures and HTTP errors of Streamable HTTP; not JSON-RPC errors or result validation. */
function isTransportFailure(error: unknown): boolean {
  if (sdkErrorCode(error) !== undefined) return false;
  const sdk = loadedMcpSdk();
  return error instanceof TypeError || (sdk !== undefined && error instanceof sdk.StreamableHTTPError);
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function describeError(error: unknown): string {
  if (sdkErrorCode(error) === JsonRpcErrorCode.RequestTimeout) return "timed out while connecting";
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}
