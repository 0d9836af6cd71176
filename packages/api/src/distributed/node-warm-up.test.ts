import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { warmUpNode } from "./node-warm-up.ts";

const SIZE = { rounds: 1, sessions: 2, deltas: 4 };

describe("warmUpNode when it cannot finish", () => {
  let root: string;
  let silent: Server | undefined;
  const sockets: Socket[] = [];

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "cairn-warm-up-test-"));
  });

  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => (silent ? silent.close(resolve) : resolve(undefined)));
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
