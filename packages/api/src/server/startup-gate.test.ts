import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { StartupGate } from "./startup-gate.ts";

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

let server: Server | undefined;
afterEach(async () => {
  await new Promise((done) => server?.close(done) ?? done(undefined));
  server = undefined;
});

async function serve(gate: StartupGate): Promise<number> {
  server = createServer(gate.listener);
  await new Promise<void>((done) => server?.listen(0, "127.0.0.1", done));
  return (server.address() as AddressInfo).port;
}

/** One request; resolves with the whole answer. */
function ask(port: number, options: { method?: string; path?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: "127.0.0.1", port, method: options.method ?? "GET", path: options.path ?? "/", headers: options.headers ?? {} },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}

describe("StartupGate", () => {
  it("answers every request at once with 503 and Retry-After while starting: a reloading page for browsers, plain text for the rest", async () => {
    const port = await serve(new StartupGate());
    const page = await ask(port, { path: "/?token=abc", headers: { accept: "text/html,application/xhtml+xml" } });
    expect(page.status).toBe(503);
    expect(page.headers["retry-after"]).toBe("1");
    expect(page.headers["cache-control"]).toBe("no-store");
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.body).toContain('<meta http-equiv="refresh" content="1">');
    expect(page.body).toContain("Cairn is starting");

    const api = await ask(port, { method: "POST", path: "/api/trpc/session.send", body: JSON.stringify({ text: "x".repeat(100_000) }) });
    expect(api.status).toBe(503);
    expect(api.headers["retry-after"]).toBe("1");
    expect(api.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(api.body).toBe("503 Service Unavailable: Cairn is starting; try again in a moment\n");
  });

  it("refuses a foreign host name with 403 once the allowed names are known, as the ready server would", async () => {
    const gate = new StartupGate();
    const port = await serve(gate);
    gate.restrictHosts((header) => header === `127.0.0.1:${port}`);
    expect((await ask(port, { headers: { host: "evil.example" } })).status).toBe(403);
    expect((await ask(port)).status).toBe(503);
  });

  it("hands every request to the real handler once open, on the same server", async () => {
    const gate = new StartupGate();
    const port = await serve(gate);
    expect((await ask(port, { path: "/ready" })).status).toBe(503);
    gate.open((request, response) => {
      response.writeHead(200, { "Content-Type": "text/plain" });
      response.end(`served ${request.url}`);
    });
    const served = await ask(port, { path: "/ready" });
    expect(served.status).toBe(200);
    expect(served.body).toBe("served /ready");
  });
});
