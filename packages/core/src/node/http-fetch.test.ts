import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { httpFetch } from "./http-fetch.ts";
import type { HttpFetchResponse } from "./http-fetch-response.ts";

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;
const servers: Server[] = [];

/** A local HTTP server answering with `handler` (the request body read first); its base URL. */
async function serve(handler: Handler): Promise<string> {
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => handler(request, body, response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe("httpFetch", () => {
  it("sends the method, headers and body, and answers with status, headers and the body", async () => {
    const url = await serve((request, body, response) => {
      response.writeHead(201, "Made", { "content-type": "application/json", "request-id": "req_1" });
      response.end(JSON.stringify({ method: request.method, body, headers: request.headers }));
    });
    const response = await httpFetch(`${url}/v1/messages?beta=true`, {
      method: "post",
      headers: new Headers({ "X-Api-Key": "key", "Content-Type": "application/json" }),
      body: JSON.stringify({ hello: "wörld" }),
    });
    expect([response.status, response.statusText, response.ok, response.url, response.redirected]).toEqual([
      201,
      "Made",
      true,
      `${url}/v1/messages?beta=true`,
      false,
    ]);
    expect(response.headers.get("Request-Id")).toBe("req_1");
    const echoed = (await response.json()) as { method: string; body: string; headers: Record<string, string> };
    expect(echoed.method).toBe("POST");
    expect(JSON.parse(echoed.body)).toEqual({ hello: "wörld" });
    expect(echoed.headers).toMatchObject({ "x-api-key": "key", "content-type": "application/json", "content-length": "18", accept: "*/*" });
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
  });

  it("hands the body on chunk by chunk as it arrives, as a web stream", async () => {
    let finish: () => void = () => undefined;
    const url = await serve((_request, _body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("event: one\n\n");
      finish = () => response.end("event: two\n\n");
    });
    const response = await httpFetch(url);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.value).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(first.value)).toBe("event: one\n\n");
    finish();
    const second = await reader.read();
    expect(new TextDecoder().decode(second.value)).toBe("event: two\n\n");
    expect((await reader.read()).done).toBe(true);
  });

  it.each(["bytes()", "bodyReader()"])("stops reading the socket while nobody reads (up to 64 KiB wait), then hands on every byte through %s", async (way) => {
    const chunk = "x".repeat(64 * 1024);
    const CHUNKS = 1024; // 64 MiB: more than the connection's buffers hold
    let written = 0;
    let server: ServerResponse | undefined;
    const url = await serve((_request, _body, response) => {
      server = response;
      response.writeHead(200, { "content-type": "application/octet-stream" });
      const fill = () => {
        while (written < CHUNKS) {
          written++;
          if (!response.write(chunk)) {
            response.once("drain", fill);
            return;
          }
        }
        response.end();
      };
      fill();
    });
    const response = await httpFetch(url);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server!.writableNeedDrain).toBe(true);
    expect(written).toBeLessThan(CHUNKS);
    if (way === "bytes()") {
      expect((await (response as HttpFetchResponse).bytes()).byteLength).toBe(CHUNKS * chunk.length);
      return;
    }
    const reader = (response as HttpFetchResponse).bodyReader()!;
    let length = 0;
    for (let part = await reader.read(); !part.done; part = await reader.read()) length += part.value.byteLength;
    expect(length).toBe(CHUNKS * chunk.length);
  });

  it("hands the body over without its web stream through bodyReader(), which takes the body", async () => {
    let finish: () => void = () => undefined;
    let cut: () => void = () => undefined;
    const url = await serve((request, _body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("event: one\n\n");
      if (request.url === "/cut") cut = () => response.destroy();
      else finish = () => response.end("event: two\n\n");
    });
    const response = (await httpFetch(url)) as HttpFetchResponse;
    const reader = response.bodyReader()!;
    expect(response.body!.locked).toBe(true);
    await expect(response.text()).rejects.toThrow("Body is unusable");
    expect(() => response.bodyReader()).toThrow("Body is unusable");
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("event: one\n\n");
    finish();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("event: two\n\n");
    expect((await reader.read()).done).toBe(true);
    // Cut short: TypeError("terminated"), as Node's fetch. Cancelled: the read waiting ends as done.
    const cutShort = ((await httpFetch(`${url}/cut`)) as HttpFetchResponse).bodyReader()!;
    await cutShort.read();
    cut();
    await expect(cutShort.read()).rejects.toMatchObject({ name: "TypeError", message: "terminated" });
    const cancelled = ((await httpFetch(url)) as HttpFetchResponse).bodyReader()!;
    await cancelled.read();
    const waiting = cancelled.read();
    await cancelled.cancel();
    expect((await waiting).done).toBe(true);
    // A body already read through its stream is not handed over again.
    const streamed = (await httpFetch(url)) as HttpFetchResponse;
    streamed.body!.getReader();
    expect(() => streamed.bodyReader()).toThrow("Body is unusable");
  });

  it("rejects with the abort's AbortError before the answer, and errors the body's stream with it after", async () => {
    const url = await serve((request, _body, response) => {
      if (request.url === "/slow") return;
      response.writeHead(200);
      response.write("part");
    });
    const early = new AbortController();
    early.abort();
    await expect(httpFetch(url, { signal: early.signal })).rejects.toMatchObject({ name: "AbortError" });
    const waiting = new AbortController();
    const pending = httpFetch(`${url}/slow`, { signal: waiting.signal });
    setTimeout(() => waiting.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    for (const read of ["body", "bodyReader"] as const) {
      const reading = new AbortController();
      const response = (await httpFetch(url, { signal: reading.signal })) as HttpFetchResponse;
      const reader = read === "body" ? response.body!.getReader() : response.bodyReader()!;
      await reader.read();
      reading.abort();
      await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
    }
  });

  it("fails as Node's fetch fails: TypeError('fetch failed') for no connection, 'terminated' for a body cut short", async () => {
    const url = await serve((_request, _body, response) => {
      response.writeHead(200, { "content-length": "100" });
      response.write("only part of it");
      setTimeout(() => response.socket?.destroy(), 10);
    });
    const port = Number(new URL(url).port);
    const closed = await serve(() => undefined);
    const closedPort = new URL(closed).port;
    await new Promise((resolve) => servers.pop()!.close(resolve));
    await expect(httpFetch(`http://127.0.0.1:${closedPort}/`)).rejects.toMatchObject({
      name: "TypeError",
      message: "fetch failed",
      cause: { code: "ECONNREFUSED" },
    });
    const response = await httpFetch(`http://127.0.0.1:${port}/`);
    await expect(response.text()).rejects.toMatchObject({ name: "TypeError", message: "terminated" });
    await expect(httpFetch("ftp://127.0.0.1/")).rejects.toThrow(TypeError);
  });

  it("follows redirects as fetch does: 307 keeps the POST and its body, 303 turns it into a GET", async () => {
    const url = await serve((request, body, response) => {
      if (request.url === "/temporary") return void response.writeHead(307, { location: "/echo" }).end();
      if (request.url === "/see-other") return void response.writeHead(303, { location: "/echo" }).end();
      response.end(`${request.method} ${body}`);
    });
    const kept = await httpFetch(`${url}/temporary`, { method: "POST", body: "payload" });
    expect([await kept.text(), kept.redirected, kept.url]).toEqual(["POST payload", true, `${url}/echo`]);
    const changed = await httpFetch(`${url}/see-other`, { method: "POST", body: "payload" });
    expect(await changed.text()).toBe("GET ");
    const manual = await httpFetch(`${url}/temporary`, { method: "POST", body: "x", redirect: "manual" });
    expect([manual.status, manual.headers.get("location")]).toEqual([307, "/echo"]);
  });

  it("drops the credentials on a redirect to another origin", async () => {
    const target = await serve((request, _body, response) => response.end(JSON.stringify(request.headers)));
    const origin = await serve((_request, _body, response) => response.writeHead(307, { location: `${target}/landing` }).end());
    const response = await httpFetch(origin, { headers: { authorization: "Bearer secret", "x-kept": "yes" } });
    const headers = (await response.json()) as Record<string, string>;
    expect(headers.authorization).toBeUndefined();
    expect(headers["x-kept"]).toBe("yes");
  });

  it("decodes a gzip body and gives no body for 204 and HEAD", async () => {
    const url = await serve((request, _body, response) => {
      if (request.url === "/empty") return void response.writeHead(204).end();
      response.writeHead(200, { "content-encoding": "gzip" });
      response.end(request.method === "HEAD" ? undefined : gzipSync("compressed text"));
    });
    expect(await (await httpFetch(url)).text()).toBe("compressed text");
    const empty = await httpFetch(`${url}/empty`);
    expect([empty.status, empty.body, await empty.text()]).toEqual([204, null, ""]);
    expect((await httpFetch(url, { method: "HEAD" })).body).toBeNull();
  });

  it("clones a response so both copies read the whole body", async () => {
    const url = await serve((_request, _body, response) => response.end("twice"));
    const response = await httpFetch(url);
    const copy = response.clone();
    expect([await response.text(), await copy.text()]).toEqual(["twice", "twice"]);
  });

  it("speaks HTTPS with the certificate checked: an untrusted one fails, a trusted one (NODE_EXTRA_CA_CERTS) answers", async () => {
    const certificate = fileURLToPath(new URL("__fixtures__/tls/localhost-cert.pem", import.meta.url));
    const server = createTlsServer(
      { cert: readFileSync(certificate), key: readFileSync(fileURLToPath(new URL("__fixtures__/tls/localhost-key.pem", import.meta.url))) },
      (request, response) => response.end(`secure ${request.method}`),
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await expect(httpFetch(url)).rejects.toMatchObject({ message: "fetch failed", cause: { code: "DEPTH_ZERO_SELF_SIGNED_CERT" } });
    // Node reads NODE_EXTRA_CA_CERTS at start only: a child process trusts the test's certificate.
    const script = `import(${JSON.stringify(new URL("http-fetch.ts", import.meta.url).href)}).then(async ({ httpFetch }) => {
      const response = await httpFetch(${JSON.stringify(url)}, { method: "POST", body: "x" });
      process.stdout.write(response.status + " " + (await response.text()));
    });`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "-e", script], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: certificate },
    });
    expect(stdout).toBe("200 secure POST");
  });
});

describe("httpFetch's bodyReader()", () => {
  it("keeps the response's body alive while its reader is (the SDK lets a caller's abort go once that body is collected)", async () => {
    const url = await serve((_request, _body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("event: one\n\n");
    });
    const collected: string[] = [];
    const registry = new FinalizationRegistry((name: string) => collected.push(name));
    // As the SDK does (armAbandonmentBackstop): the body is watched, and the caller keeps only the reader.
    const reader = await (async () => {
      const response = (await httpFetch(url)) as HttpFetchResponse;
      registry.register(response.body!, "body");
      return response.bodyReader()!;
    })();
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    for (let round = 0; round < 3; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(collected).toEqual([]);
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("event: one\n\n");
    await reader.cancel();
  });
});
