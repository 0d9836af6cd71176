import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the proxy passed on: which upstream answered it, and how. */
type ProxiedRequest = { upstream: string; method: string; path: string; status: number };

/**
 * A load balancer without sticky sessions, for tests: each HTTP request (not each connection) goes to the next
 * upstream in turn, with its Host header unchanged, so one browser's requests alternate between API nodes. Event
 * streams are passed through as they arrive. Listens before the upstreams are known (`--allowed-host` needs its port).
 */
export class RoundRobinProxy {
  readonly served: ProxiedRequest[] = [];
  private upstreams: string[] = [];
  private next = 0;
  private readonly server: Server;

  private constructor() {
    this.server = createServer((incoming, outgoing) => {
      const upstream = this.upstreams[this.next++ % Math.max(1, this.upstreams.length)];
      if (upstream === undefined) {
        outgoing.writeHead(502).end("no upstream\n");
        return;
      }
      const target = new URL(incoming.url ?? "/", upstream);
      const forwarded = request(target, { method: incoming.method, headers: incoming.headers }, (answer) => {
        this.served.push({ upstream, method: incoming.method ?? "GET", path: incoming.url ?? "/", status: answer.statusCode ?? 0 });
        outgoing.writeHead(answer.statusCode ?? 502, stripHopHeaders(answer.headers));
        answer.pipe(outgoing);
      });
      forwarded.on("error", () => {
        if (!outgoing.headersSent) outgoing.writeHead(502);
        outgoing.end();
      });
      // The browser went away (a closed event stream): close the upstream request too.
      outgoing.on("close", () => forwarded.destroy());
      incoming.pipe(forwarded);
    });
  }

  static async start(): Promise<RoundRobinProxy> {
    const proxy = new RoundRobinProxy();
    await new Promise<void>((resolve) => proxy.server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The upstreams' base URLs (`http://127.0.0.1:<port>`), taken in turn from the next request on. */
  route(upstreams: readonly string[]): void {
    this.upstreams = [...upstreams];
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function stripHopHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { connection: _connection, "keep-alive": _keepAlive, "transfer-encoding": _transferEncoding, ...rest } = headers;
  return rest;
}
