import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { z } from "zod";
import type { McpServerEntry } from "./config.ts";
import type { McpTransportFactory } from "./connection.ts";

/** A 1×1 transparent PNG. */
export const TINY_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/**
 * A real MCP server (the SDK's McpServer) in this process, reached over the SDK's in-memory
 * transport: each connection gets a fresh server, as a restarted process would. For unit tests.
 */
export function createInMemoryServers(options: { failConnects?: () => boolean } = {}) {
  const live = new Map<string, { server: McpServer; transport: InMemoryTransport }>();
  let connects = 0;
  const factory: McpTransportFactory = async (entry: McpServerEntry) => {
    connects++;
    if (options.failConnects?.()) throw new Error("spawn test-server ENOENT");
    const server = buildServer(entry.name);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    live.set(entry.name, { server, transport: serverSide });
    return clientSide;
  };
  return {
    factory,
    get connects() {
      return connects;
    },
    /** Closes the server side, as if its process died. */
    async kill(name: string): Promise<void> {
      const current = live.get(name);
      live.delete(name);
      await current?.transport.close();
    },
    async closeAll(): Promise<void> {
      for (const name of [...live.keys()]) await this.kill(name);
    },
  };
}

function buildServer(name: string): McpServer {
  const server = new McpServer({ name, version: "1.0.0" }, { capabilities: { tools: {}, resources: {}, prompts: {} } });
  const readOnly = { readOnlyHint: true };
  server.registerTool(
    "echo",
    { description: "Echoes back the input string", inputSchema: { message: z.string() }, annotations: readOnly },
    async ({ message }) => ({
      content: [{ type: "text", text: `Echo: ${message}` }],
    }),
  );
  server.registerTool("write note", { description: "Stores a note (not read-only)", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text: `stored ${text.length} characters` }],
  }));
  server.registerTool("slow", { description: "Waits, then answers", inputSchema: { ms: z.number() }, annotations: readOnly }, async ({ ms }, extra) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return { content: [{ type: "text", text: `waited ${ms} ms` }] };
  });
  server.registerTool("fail", { description: "Always reports an error", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: "the widget is broken" }],
    isError: true,
  }));
  server.registerTool("image", { description: "Returns an image", inputSchema: {}, annotations: readOnly }, async () => ({
    content: [
      { type: "text", text: "Here is the image:" },
      { type: "image", data: TINY_PNG, mimeType: "image/png" },
    ],
  }));
  server.registerTool("resource", { description: "Returns an embedded resource", inputSchema: {}, annotations: readOnly }, async () => ({
    content: [{ type: "resource", resource: { uri: "test://notes/1", mimeType: "text/plain", text: "note one" } }],
  }));
  server.registerTool("big", { description: "Returns a large text", inputSchema: { chars: z.number() }, annotations: readOnly }, async ({ chars }) => ({
    content: [{ type: "text", text: "x".repeat(chars) }],
  }));
  server.registerTool("progress", { description: "Reports progress", inputSchema: { steps: z.number() }, annotations: readOnly }, async ({ steps }, extra) => {
    const token = extra._meta?.progressToken;
    for (let step = 1; step <= steps; step++) {
      if (token !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: step, total: steps, message: `step ${step}` },
        });
      }
    }
    return { content: [{ type: "text", text: "done" }] };
  });
  server.registerResource("notes", "test://notes/1", { description: "The first note", mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, text: "note one" }],
  }));
  server.registerPrompt("review", { description: "Review a file", argsSchema: { path: z.string() } }, ({ path }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Review ${path}` } }],
  }));
  return server;
}
