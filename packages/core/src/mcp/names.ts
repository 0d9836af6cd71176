/**
 * MCP tool names as Claude Code builds them: `mcp__<server>__<tool>`, each part with every character
 * outside `[a-zA-Z0-9_-]` replaced by `_`, so a server configured as "my server" exposes
 * `mcp__my_server__search`, and permission rules name it that way.
 */
export function normalizeNameForMCP(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, "_");
}

export function buildMcpToolName(serverName: string, toolName: string): string {
  return `mcp__${normalizeNameForMCP(serverName)}__${normalizeNameForMCP(toolName)}`;
}

/** `mcp__server__tool` → its parts; `mcp__server` → the server only; anything else → null. */
export function mcpInfoFromString(name: string): { serverName: string; toolName: string | undefined } | null {
  const [prefix, serverName, ...rest] = name.split("__");
  if (prefix !== "mcp" || !serverName) return null;
  return { serverName, toolName: rest.length > 0 ? rest.join("__") : undefined };
}

/**
 * The connection that owns a tool name. Compares normalised names: the tool name holds the
 * normalised server name, the connection its configured one (which may contain spaces or dots).
 */
export function findMcpServerConnection<Connection extends { readonly name: string }>(
  toolName: string,
  connections: readonly Connection[],
): Connection | undefined {
  if (!toolName.startsWith("mcp__")) return undefined;
  const info = mcpInfoFromString(toolName);
  if (!info) return undefined;
  return connections.find((connection) => normalizeNameForMCP(connection.name) === info.serverName);
}
