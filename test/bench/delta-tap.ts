import { createServer, Socket, type Server } from "node:net";

/** The id each scripted delta carries (16 characters with its padding): `S<round>D<number>------`. */
export const DELTA_ID = /S\d{3}D\d{5}/g;

/** One 16-character delta text whose id is unique over a bench run (`textChunkSize: 16` makes it one delta). */
export function deltaSegment(round: number, index: number): string {
  return `S${String(round % 1000).padStart(3, "0")}D${String(index).padStart(5, "0")}------`;
}

/** A TCP pass-through in front of the model simulator that timestamps each delta id as it is forwarded. */
export class DeltaTap {
  readonly emitted = new Map<string, number>();
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  url = "";

  private constructor(target: URL) {
    this.server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(Number(target.port), target.hostname);
      this.sockets.add(client).add(upstream);
      client.pipe(upstream);
      let tail = "";
      upstream.on("data", (chunk: Buffer) => {
        const at = performance.now();
        client.write(chunk);
        const text = tail + chunk.toString("latin1");
        for (const id of text.match(DELTA_ID) ?? []) if (!this.emitted.has(id)) this.emitted.set(id, at);
        tail = text.slice(-16);
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

  static async start(simUrl: string): Promise<DeltaTap> {
    const tap = new DeltaTap(new URL(simUrl));
    await new Promise<void>((resolve) => tap.server.listen(0, "127.0.0.1", resolve));
    tap.url = `http://127.0.0.1:${(tap.server.address() as { port: number }).port}`;
    return tap;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
