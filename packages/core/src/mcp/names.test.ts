import { describe, expect, it } from "vitest";
import { buildMcpToolName, findMcpServerConnection, mcpInfoFromString, normalizeNameForMCP } from "./names.ts";

describe("MCP tool names", () => {
  it("replaces every character outside [a-zA-Z0-9_-] with an underscore", () => {
    expect(normalizeNameForMCP("my server.v2/é")).toBe("my_server_v2__");
    expect(normalizeNameForMCP("plain-name_1")).toBe("plain-name_1");
  });

  it("builds mcp__<server>__<tool> from normalised parts", () => {
    expect(buildMcpToolName("Git Hub", "search issues")).toBe("mcp__Git_Hub__search_issues");
  });

  it("splits a tool name back into server and tool, keeping double underscores inside the tool", () => {
    expect(mcpInfoFromString("mcp__github__create__issue")).toEqual({ serverName: "github", toolName: "create__issue" });
    expect(mcpInfoFromString("mcp__github")).toEqual({ serverName: "github", toolName: undefined });
    expect(mcpInfoFromString("Read")).toBeNull();
  });

  it("finds the connection for a tool name even when the configured server name has spaces", () => {
    const connections = [{ name: "file system" }, { name: "my server" }];
    expect(findMcpServerConnection("mcp__my_server__echo", connections)).toBe(connections[1]);
    expect(findMcpServerConnection("mcp__other__echo", connections)).toBeUndefined();
    expect(findMcpServerConnection("Bash", connections)).toBeUndefined();
  });
});
