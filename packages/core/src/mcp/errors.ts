export const mcpErrorCodes = [
  "invalid_config",
  "connect_failed",
  "connect_timeout",
  "not_connected",
  "disconnected",
  "timeout",
  "aborted",
  "unknown_server",
  "protocol_error",
] as const;
export type McpErrorCode = (typeof mcpErrorCodes)[number];

/** A failure talking to an MCP server. The code survives serialisation; the server name says whose. */
export class McpError extends Error {
  readonly code: McpErrorCode;
  readonly serverName: string | undefined;

  constructor(code: McpErrorCode, message: string, options: { serverName?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "McpError";
    this.code = code;
    this.serverName = options.serverName;
  }
}

export function isMcpError(error: unknown): error is McpError {
  return error instanceof McpError;
}
