import { TRPCClientError } from "@trpc/client";
import { describe, expect, it, vi } from "vitest";
import type { AppRouter } from "@cairn/api";
import { readSse, startApiFixture } from "./api-harness.ts";
import { everythingServer } from "./mcp-support.ts";

/** The `mcp` router over real HTTP, with server-everything started over stdio by the server's runtime. */

type Summary = { name: string; status: string; toolCount: number };
const statuses = (servers: Summary[] | undefined) => servers?.map(({ name, status }) => ({ name, status }));
const everything = { command: process.execPath, args: [everythingServer, "stdio"] };

function startMcpServer(options: { mcpConfig?: object; projectMcp?: object } = {}) {
  return startApiFixture({
    ...(options.projectMcp ? { files: { ".mcp.json": JSON.stringify(options.projectMcp) } } : {}),
    ...(options.mcpConfig ? { mcpConfig: [options.mcpConfig] } : {}),
  });
}

/** Reads `mcp.changes` over SSE until stopped. */
function watchChanges(url: string, token: string) {
  const controller = new AbortController();
  const received: Summary[][] = [];
  const done = (async () => {
    try {
      for await (const message of readSse(`${url}/api/trpc/mcp.changes`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal })) {
        if (message.event === "message") received.push(JSON.parse(message.data) as Summary[]);
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  })();
  return {
    received,
    async stop() {
      controller.abort();
      await done;
    },
  };
}

describe("mcp router", () => {
  it("lists a stdio server with its status, tools, resources and prompts", async () => {
    await using fixture = await startMcpServer({ mcpConfig: { mcpServers: { everything } } });
    const servers = await fixture.client.mcp.servers.query();
    expect(servers).toHaveLength(1);
    const [server] = servers;
    expect(server).toMatchObject({ name: "everything", source: "dynamic", transport: "stdio", status: "connected", sandboxed: true });
    expect(server?.tools).toEqual(expect.arrayContaining(["echo", "get-sum"]));
    expect(server?.resources.length).toBeGreaterThan(0);
    expect(server?.resources[0]).toEqual({
      uri: expect.any(String),
      name: expect.any(String),
      ...(server?.resources[0]?.mimeType ? { mimeType: expect.any(String) } : {}),
    });
    expect(server?.prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining(["simple-prompt"]));
    const withArguments = server?.prompts.find((prompt) => prompt.arguments.length > 0);
    expect(withArguments?.arguments[0]).toMatchObject({ name: expect.any(String), required: expect.any(Boolean) });
    expect(server?.listError).toBeUndefined();
  });

  it("reconnects a server on request, and the changes subscription reports each step", async () => {
    await using fixture = await startMcpServer({ mcpConfig: { mcpServers: { everything } } });
    const watcher = watchChanges(fixture.server.url, fixture.server.token);
    try {
      await vi.waitFor(() => expect(watcher.received[0]).toEqual([{ name: "everything", status: "connected", toolCount: expect.any(Number) }]), {
        timeout: 10_000,
      });
      const reconnected = await fixture.client.mcp.reconnect.mutate({ name: "everything" });
      expect(reconnected).toMatchObject({ name: "everything", status: "connected" });
      await vi.waitFor(() => expect(watcher.received.map((servers) => servers[0]?.status)).toEqual(expect.arrayContaining(["connecting", "connected"])), {
        timeout: 10_000,
      });
      expect(statuses(watcher.received.at(-1))).toEqual([{ name: "everything", status: "connected" }]);
    } finally {
      await watcher.stop();
    }
    const missing = await fixture.client.mcp.reconnect.mutate({ name: "nope" }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(TRPCClientError);
    expect((missing as TRPCClientError<AppRouter>).data).toMatchObject({ code: "NOT_FOUND", cairn: { code: "mcp_server_not_found" } });
  });

  it("shows a project server as needing trust until the workspace is trusted", async () => {
    await using fixture = await startMcpServer({ projectMcp: { mcpServers: { proj: everything } } });
    expect(await fixture.client.mcp.servers.query()).toEqual([
      {
        name: "proj",
        source: "project",
        transport: "stdio",
        status: "needs-trust",
        reason: expect.any(String),
        sandboxed: null,
        tools: [],
        resources: [],
        prompts: [],
      },
    ]);
    const refused = await fixture.client.mcp.reconnect.mutate({ name: "proj" }).catch((error: unknown) => error);
    expect((refused as TRPCClientError<AppRouter>).data).toMatchObject({ cairn: { code: "untrusted_workspace" } });
    const watcher = watchChanges(fixture.server.url, fixture.server.token);
    try {
      await vi.waitFor(() => expect(watcher.received.length).toBeGreaterThan(0), { timeout: 10_000 });
      await fixture.client.meta.trust.mutate();
      await vi.waitFor(() => expect(statuses(watcher.received.at(-1))).toEqual([{ name: "proj", status: "connected" }]), { timeout: 20_000 });
    } finally {
      await watcher.stop();
    }
    expect((await fixture.client.mcp.servers.query())[0]).toMatchObject({ name: "proj", status: "connected", sandboxed: true });
  });
});
