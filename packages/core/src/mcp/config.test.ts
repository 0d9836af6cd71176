import { describe, expect, it } from "vitest";
import { describeServer, expandEnvVars, expandServerConfig, mergeMcpServers, parseMcpConfigText, requiresTrust } from "./config.ts";

describe("MCP configuration", () => {
  it("reads Claude Code's .mcp.json format: stdio, http and sse servers", () => {
    const text = JSON.stringify({
      mcpServers: {
        files: { command: "npx", args: ["-y", "server-filesystem", "."], env: { DEBUG: "1" } },
        remote: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } },
        legacy: { type: "sse", url: "https://mcp.example.com/sse" },
      },
    });
    const { servers, problems } = parseMcpConfigText(text, "project", "/w/.mcp.json");
    expect(problems).toEqual([]);
    expect(servers.map((server) => [server.name, server.source])).toEqual([
      ["files", "project"],
      ["remote", "project"],
      ["legacy", "project"],
    ]);
    expect(describeServer(servers[0]!.config)).toBe("npx -y server-filesystem .");
    expect(describeServer(servers[1]!.config)).toBe("http https://mcp.example.com/mcp");
  });

  it("reports a broken entry with its name and keeps the others", () => {
    const text = JSON.stringify({ mcpServers: { good: { command: "node" }, noCommand: { args: [] }, noUrl: { type: "http" }, odd: { type: "ws", url: "x" } } });
    const { servers, problems } = parseMcpConfigText(text, "dynamic", "cfg.json");
    expect(servers.map((server) => server.name)).toEqual(["good"]);
    expect(problems.map((problem) => problem.server)).toEqual(["noCommand", "noUrl", "odd"]);
    expect(problems[1]!.message).toContain('needs a "url"');
    expect(problems[2]!.message).toContain('unknown server type "ws"');
  });

  it("reports invalid JSON and a missing mcpServers object", () => {
    expect(parseMcpConfigText("{ nope", "project", "f").problems[0]!.message).toContain("not valid JSON");
    expect(parseMcpConfigText("{}", "project", "f").problems[0]!.message).toContain('"mcpServers"');
  });

  it("merges by name: --mcp-config over settings over .mcp.json over user settings", () => {
    const entry = (name: string, source: Parameters<typeof requiresTrust>[0], command: string) => ({ name, source, config: { command } });
    const merged = mergeMcpServers([
      [entry("a", "userSettings", "user-a"), entry("b", "userSettings", "user-b")],
      [entry("a", "project", "project-a"), entry("c", "project", "project-c")],
      [entry("c", "dynamic", "cli-c")],
    ]);
    expect(merged.map((server) => [server.name, (server.config as { command: string }).command])).toEqual([
      ["a", "project-a"],
      ["b", "user-b"],
      ["c", "cli-c"],
    ]);
  });

  it("needs trust only for servers the workspace configures", () => {
    expect(requiresTrust("project")).toBe(true);
    expect(requiresTrust("projectSettings")).toBe(true);
    expect(requiresTrust("localSettings")).toBe(true);
    expect(requiresTrust("userSettings")).toBe(false);
    expect(requiresTrust("dynamic")).toBe(false);
  });

  it("expands ${VAR} and ${VAR:-default}, and reports unset variables without a default", () => {
    const env = { HOME: "/home/u", EMPTY: "" };
    expect(expandEnvVars("${HOME}/x", env)).toEqual({ value: "/home/u/x", missing: [] });
    expect(expandEnvVars("${PORT:-8080}", env)).toEqual({ value: "8080", missing: [] });
    expect(expandEnvVars("${EMPTY:-fallback}", env)).toEqual({ value: "", missing: [] });
    expect(expandEnvVars("a ${TOKEN} b", env)).toEqual({ value: "a ${TOKEN} b", missing: ["TOKEN"] });
  });

  it("expands command, args and env of stdio servers, url and headers of remote ones", () => {
    const env = { ROOT: "/srv", TOKEN: "secret" };
    const stdio = expandServerConfig({ command: "${ROOT}/bin/server", args: ["--dir", "${ROOT}/data"], env: { API_TOKEN: "${TOKEN}" } }, env);
    expect(stdio.config).toEqual({ command: "/srv/bin/server", args: ["--dir", "/srv/data"], env: { API_TOKEN: "secret" } });
    const remote = expandServerConfig(
      { type: "http", url: "https://${HOST:-localhost}/mcp", headers: { Authorization: "Bearer ${TOKEN}", X: "${NOPE}" } },
      env,
    );
    expect(remote.config).toEqual({ type: "http", url: "https://localhost/mcp", headers: { Authorization: "Bearer secret", X: "${NOPE}" } });
    expect(remote.missing).toEqual(["NOPE"]);
  });
});
