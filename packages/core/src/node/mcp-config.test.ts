import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadMcpServers } from "./mcp-config.ts";

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "cairn-mcp-config-test-"));
});

afterEach(() => rm(root, { recursive: true, force: true }));

describe("loadMcpServers: the workspace's .mcp.json", () => {
  it("starts what it lists", async () => {
    await writeFile(join(root, ".mcp.json"), JSON.stringify({ mcpServers: { local: { command: "/bin/true" } } }));
    const loaded = await loadMcpServers({ workspaceRoot: root });
    expect(loaded.servers.map((server) => server.name)).toEqual(["local"]);
    expect(loaded.problems).toEqual([]);
  });

  it("as a directory (the sandbox's stand-in while a shell runs) lists nothing and is no problem, like an absent one", async () => {
    expect(await loadMcpServers({ workspaceRoot: root })).toEqual({ servers: [], problems: [] });
    await mkdir(join(root, ".mcp.json"));
    expect(await loadMcpServers({ workspaceRoot: root })).toEqual({ servers: [], problems: [] });
  });

  it("reports one it cannot parse", async () => {
    await writeFile(join(root, ".mcp.json"), "{ not json");
    const loaded = await loadMcpServers({ workspaceRoot: root });
    expect(loaded.servers).toEqual([]);
    expect(loaded.problems).toHaveLength(1);
  });
});
