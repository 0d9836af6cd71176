// The MCP SDK (with its JSON Schema validator) is loaded the first time a server connects, not when
// Cairn starts: a run with no MCP server configured never pays for it.
type ClientModule = typeof import("@modelcontextprotocol/sdk/client/index.js");
type HttpModule = typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js");
type TypesModule = typeof import("@modelcontextprotocol/sdk/types.js");

export type McpSdk = {
  Client: ClientModule["Client"];
  StreamableHTTPError: HttpModule["StreamableHTTPError"];
  ErrorCode: TypesModule["ErrorCode"];
  McpError: TypesModule["McpError"];
};

let loading: Promise<McpSdk> | undefined;
let loaded: McpSdk | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(([client, http, types]) => {
    loaded = { Client: client.Client, StreamableHTTPError: http.StreamableHTTPError, ErrorCode: types.ErrorCode, McpError: types.McpError };
    return loaded;
  });
  return loading;
}

/** The SDK if a connection has loaded it. Its errors can only exist once it has been. */
export function loadedMcpSdk(): McpSdk | undefined {
  return loaded;
}

/** The SDK's `ErrorCode` values Cairn tells apart, without loading the SDK's schema module to read them. */
export const JsonRpcErrorCode = { ConnectionClosed: -32000, RequestTimeout: -32001 } as const;

/** The JSON-RPC error code of an SDK `McpError`, or undefined for anything else. */
export function sdkErrorCode(error: unknown): number | undefined {
  return loaded && error instanceof loaded.McpError ? error.code : undefined;
}
