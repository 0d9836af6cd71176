import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { answerHealth, type HealthOptions } from "./health.ts";

let server: Server | undefined;

async function serve(options: HealthOptions): Promise<string> {
  server = createServer((request, response) => {
    if (answerHealth(request, response, options)) return;
    response.writeHead(418);
    response.end("not health");
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

describe("/healthz and /readyz", () => {
  it("answers healthz always, and readyz only when every shared service answers", async () => {
    let redis = "ok";
    const url = await serve({ nodeId: "api-1", accepting: () => true, checks: async () => ({ postgres: "ok", redis }) });
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: "ok", nodeId: "api-1" });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", nodeId: "api-1", checks: { postgres: "ok", redis: "ok" } });
    redis = "connect ECONNREFUSED 127.0.0.1:6379";
    const down = await fetch(`${url}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: "unavailable", checks: { redis: "connect ECONNREFUSED 127.0.0.1:6379" } });
    expect((await fetch(`${url}/other`)).status).toBe(418);
    expect((await fetch(`${url}/readyz`, { method: "POST" })).status).toBe(405);
  });

  it("says draining once the node is shutting down, while healthz still answers", async () => {
    const url = await serve({ nodeId: undefined, accepting: () => false, checks: async () => ({}) });
    const readiness = await fetch(`${url}/readyz`);
    expect(readiness.status).toBe(503);
    expect(await readiness.json()).toEqual({ status: "draining" });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
