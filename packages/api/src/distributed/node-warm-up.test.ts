import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { warmUpNode } from "./node-warm-up.ts";

const SIZE = { rounds: 1, sessions: 2, deltas: 4 };

describe("warmUpNode when it cannot finish", () => {
  let root: string;
  let silent: Server | undefined;
  let owner: HttpServer | undefined;
  const sockets: Socket[] = [];

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "cairn-warm-up-test-"));
  });

  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => (silent ? silent.close(resolve) : resolve(undefined)));
    owner?.closeAllConnections();
    await new Promise((resolve) => (owner ? owner.close(resolve) : resolve(undefined)));
    await rm(root, { recursive: true, force: true });
  });

  it("a scratch server that fails to start fails the warm-up, and what was started is closed and removed", async () => {
    const closed: string[] = [];
    let started = 0;
    const failure = warmUpNode({
      size: SIZE,
      tmpRoot: root,
      scratchBuses: undefined,
      startServer: async () => {
        started += 1;
        if (started === 2) throw new Error("no port for the second one");
        return { url: "http://127.0.0.1:9", token: "t", close: async () => void closed.push("first") };
      },
    });
    await expect(failure).rejects.toThrow("no port for the second one");
    expect(closed).toEqual(["first"]);
    expect(await readdir(root)).toEqual([]);
  });

  it("a scratch server whose start finishes after the time limit is closed then, not left running", async () => {
    const closed: string[] = [];
    let lateStart!: () => void;
    const startedLate = new Promise<void>((resolve) => (lateStart = resolve));
    const failure = warmUpNode({
      size: SIZE,
      tmpRoot: root,
      timeoutMs: 100,
      scratchBuses: undefined,
      startServer: async () => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        lateStart();
        return { url: "http://127.0.0.1:9", token: "t", close: async () => void closed.push("late server") };
      },
    });
    await expect(failure).rejects.toThrow("did not finish within 100 ms");
    expect(closed).toEqual([]);
    await startedLate;
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toEqual(["late server"]);
  });

  it("a follower whose events request fails fails the warm-up at once, not at its time limit", async () => {
    // The owner answers each call as a server whose sessions are idle; the follower's port refuses connections.
    owner = createHttpServer((request, response) => {
      const data = request.url?.startsWith("/api/trpc/session.get") ? { running: false, messages: [1, 2] } : { sessionId: "s-1" };
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ result: { data } }));
    });
    await new Promise<void>((resolve) => owner!.listen(0, "127.0.0.1", resolve));
    const ownerUrl = `http://127.0.0.1:${(owner.address() as { port: number }).port}`;
    const closed: string[] = [];
    const servers = [
      { url: ownerUrl, token: "t", close: async () => void closed.push("owner") },
      { url: "http://127.0.0.1:9", token: "t", close: async () => void closed.push("follower") },
    ];
    const started = Date.now();
    const failure = warmUpNode({ size: SIZE, tmpRoot: root, timeoutMs: 20_000, scratchBuses: undefined, startServer: async () => servers.shift()! });
    await expect(failure).rejects.toThrow(/ECONNREFUSED/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(closed).toEqual(["owner", "follower"]);
  });

  it("a scratch server that never answers ends the warm-up at its time limit, the servers and buses closed", async () => {
    silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent!.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    const closed: string[] = [];
    const bus = (name: string) => ({ bus: {} as never, close: async () => void closed.push(`bus ${name}`) });
    const failure = warmUpNode({
      size: SIZE,
      tmpRoot: root,
      timeoutMs: 300,
      scratchBuses: async () => [bus("a"), bus("b")],
      startServer: async () => ({ url: `http://127.0.0.1:${port}`, token: "t", close: async () => void closed.push("server") }),
    });
    await expect(failure).rejects.toThrow("did not finish within 300 ms");
    expect(closed).toEqual(["server", "server", "bus a", "bus b"]);
    expect(await readdir(root)).toEqual([]);
  });
});
