import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { trpcHttpCall } from "./loopback-trpc.ts";

describe("trpcHttpCall", () => {
  let server: Server | undefined;
  const seen: Array<{ method?: string; url?: string; authorization?: string; body: string }> = [];

  afterEach(async () => {
    seen.length = 0;
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  async function answer(status: number, body: string): Promise<{ url: string; token: string }> {
    server = createServer((request: IncomingMessage, response) => {
      let text = "";
      request.on("data", (chunk: Buffer) => (text += chunk.toString()));
      request.on("end", () => {
        seen.push({ method: request.method, url: request.url, authorization: request.headers.authorization, body: text });
        response.writeHead(status, { "content-type": "application/json" });
        response.end(body);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, token: "secret-token" };
  }

  it("sends a mutation's input as the body and a query's in the URL, with the token, and resolves with the data", async () => {
    const target = await answer(200, JSON.stringify({ result: { data: { sessionId: "s-1" } } }));
    expect(await trpcHttpCall(target, "session.create", { a: 1 })).toEqual({ sessionId: "s-1" });
    expect(await trpcHttpCall(target, "session.get", { sessionId: "s 1" }, { method: "GET" })).toEqual({ sessionId: "s-1" });
    expect(seen).toEqual([
      { method: "POST", url: "/api/trpc/session.create", authorization: "Bearer secret-token", body: '{"a":1}' },
      { method: "GET", url: `/api/trpc/session.get?input=${encodeURIComponent('{"sessionId":"s 1"}')}`, authorization: "Bearer secret-token", body: "" },
    ]);
  });

  it("rejects with the status and the error, or the start of a body that is not JSON", async () => {
    const failing = await answer(404, JSON.stringify({ error: { message: "no such session" } }));
    await expect(trpcHttpCall(failing, "session.get", {}, { label: "session.get on node-a" })).rejects.toThrow(
      'session.get on node-a failed (404): {"message":"no such session"}',
    );
    await new Promise((resolve) => server!.close(resolve));
    const broken = await answer(503, "Cairn is starting");
    await expect(trpcHttpCall(broken, "session.send", {})).rejects.toThrow("session.send answered 503 with Cairn is starting");
  });
});
