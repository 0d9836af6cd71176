import { createServer, Socket, type Server } from "node:net";

/** What one connection through the tap shows its owner: the client's bytes, and the server's as they are forwarded. */
export type TapWatcher = {
  fromClient?(chunk: Buffer): void;
  /** Called just after the chunk was written on to the client; `atMs` is the clock's reading just before. */
  fromServer?(chunk: Buffer, atMs: number): void;
};

/**
 * A TCP pass-through in front of a server (the model simulator): every connection is forwarded both ways, and a
 * watcher made for it (`watch`, per connection) sees the bytes. `clock` timestamps the server's chunks.
 */
export class TcpTap {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  url = "";

  private constructor(target: URL, watch: () => TapWatcher, clock: () => number) {
    this.server = createServer((client) => {
      const watcher = watch();
      const upstream = new Socket();
      upstream.connect(Number(target.port), target.hostname);
      this.sockets.add(client).add(upstream);
      if (watcher.fromClient) client.on("data", watcher.fromClient);
      client.pipe(upstream);
      upstream.on("data", (chunk: Buffer) => {
        const atMs = clock();
        client.write(chunk);
        watcher.fromServer?.(chunk, atMs);
      });
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      upstream
        .on("end", () => client.end())
        .on("error", drop)
        .on("close", drop);
      client.on("error", drop).on("close", drop);
    });
  }

  static async start(targetUrl: string, watch: () => TapWatcher, clock: () => number = () => performance.now()): Promise<TcpTap> {
    const tap = new TcpTap(new URL(targetUrl), watch, clock);
    await new Promise<void>((resolve) => tap.server.listen(0, "127.0.0.1", resolve));
    tap.url = `http://127.0.0.1:${(tap.server.address() as { port: number }).port}`;
    return tap;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
