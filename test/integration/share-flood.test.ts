import { spawn } from "node:child_process";
import { Agent, request, type ClientRequest } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { eventually } from "./api-harness.ts";
import { prompt, startShareFixture, text } from "./share-support.ts";

type OpenedStream = { status: number; request: ClientRequest };

/** One raw `view.events` request on its own connection; resolves with the status once the headers arrive. */
function openStream(baseUrl: string, token: string): Promise<OpenedStream> {
  const input = encodeURIComponent(JSON.stringify({ token, lastEventId: "0" }));
  return new Promise((resolve, reject) => {
    const outgoing = request(`${baseUrl}/api/share/view.events?input=${input}`, { agent: false, headers: { accept: "text/event-stream" } }, (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0, request: outgoing });
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/** The owner's authenticated request, timed, on a kept-alive connection (as the IDE's would be). */
function ownerRequest(baseUrl: string, token: string, agent: Agent): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(`${baseUrl}/api/trpc/meta.info`, { agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
      response.resume();
      response.on("end", () => (response.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`meta.info: ${response.statusCode}`))));
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

const floodScript = join(dirname(fileURLToPath(import.meta.url)), "share-flood.child.ts");

/** Runs the flood in another process; resolves with every status once all streams have answered, and a way to end it. */
function flood(url: string, token: string, waves: number, perWave: number): Promise<{ statuses: number[]; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", floodScript, url, token, String(waves), String(perWave)], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    child.stdin.end();
    await exited;
  };
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const line = output.split("\n")[0];
      if (output.includes("\n") && line) resolve({ statuses: (JSON.parse(line) as { statuses: number[] }).statuses, stop });
    });
    child.once("exit", (code) => reject(new Error(`the flood exited with ${code} before reporting`)));
  });
}

const percentile = (values: number[], fraction: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * fraction))]!;

describe("a flood of share streams", () => {
  it("gets 429 past the caps, while the owner's requests stay fast and the session is redacted once for all viewers", async () => {
    const turns = Array.from({ length: 6 }, (_, index) => text(`answer ${index} ${"with some words to redact and stream ".repeat(40)}`));
    // The open bucket is sized past the flood here so the caps are what is measured (the next test covers the bucket).
    await using fixture = await startShareFixture({ scenario: { turns }, share: { streamOpens: { capacity: 1_000, refillPerMinute: 1_000 } } });
    const { sessionId } = await fixture.client.session.create.mutate();
    for (let index = 0; index < turns.length; index++) await prompt(fixture, sessionId, `prompt ${index}`);
    const { token } = await fixture.client.share.create.mutate({ sessionId, mode: "live" });
    const url = fixture.server.url;
    const ownerAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    // The owner's latency without a flood, on this (shared, busy) machine: what the flood may add to.
    const baseline: number[] = [];
    for (let index = 0; index < 200; index++) baseline.push(await ownerRequest(url, fixture.server.token, ownerAgent));
    let flooding = true;
    const latencies: number[] = [];
    const sampler = (async () => {
      while (flooding) latencies.push(await ownerRequest(url, fixture.server.token, ownerAgent));
    })();
    // 600 opens from one address (loopback only), in waves of 100 connections at once.
    const flooded = await flood(url, token, 6, 100);
    try {
      // The admitted streams replay the session and stay open meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 500));
      flooding = false;
      await sampler;
      expect(flooded.statuses.filter((status) => status === 200)).toHaveLength(4);
      expect(flooded.statuses.filter((status) => status === 429)).toHaveLength(596);
      // One subscription to the session feeds every viewer.
      expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(1);
      expect(latencies.length).toBeGreaterThan(20);
      // Before the caps, 600 streams each replaying and redacting the session took the owner's requests to 9 s.
      // On an idle machine p99 stays under 50 ms; on a shared, busy one (load 20 on 2 cores) even the unflooded
      // p99 passes 50 ms and the flood's own process start alone held one request 366 ms, so p99 is held against
      // that baseline with room for that (still 18 times under the 9 s without caps) and the median against 50 ms.
      expect(percentile(latencies, 0.5)).toBeLessThan(50);
      expect(percentile(latencies, 0.99)).toBeLessThan(Math.max(500, 4 * percentile(baseline, 0.99) + 200));
    } finally {
      flooding = false;
      await sampler.catch(() => undefined);
      await flooded.stop();
      ownerAgent.destroy();
    }
    // Closing the streams gives their places back.
    await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(0));
    const again = await openStream(url, token);
    again.request.destroy();
    expect(again.status).toBe(200);
  });

  it("caps streams per share and in total, and charges every open to the client's bucket", async () => {
    await using fixture = await startShareFixture({
      scenario: { turns: [text("one"), text("two")] },
      share: { streams: { perClient: 50, perShare: 3, total: 5 }, streamOpens: { capacity: 8, refillPerMinute: 8 } },
    });
    const { sessionId } = await fixture.client.session.create.mutate();
    await prompt(fixture, sessionId, "hi");
    const first = await fixture.client.share.create.mutate({ sessionId, mode: "live" });
    const second = await fixture.client.share.create.mutate({ sessionId, mode: "live" });
    const url = fixture.server.url;
    const opened: OpenedStream[] = [];
    try {
      for (let index = 0; index < 4; index++) opened.push(await openStream(url, first.token));
      for (let index = 0; index < 3; index++) opened.push(await openStream(url, second.token));
      expect(opened.map((stream) => stream.status)).toEqual([200, 200, 200, 429, 200, 200, 429]);
      for (const stream of opened.splice(0)) stream.request.destroy();
      // Seven opens so far; the eighth empties the bucket, whatever is open.
      await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(0));
      opened.push(await openStream(url, first.token));
      expect(opened[0]!.status).toBe(200);
      opened.push(await openStream(url, first.token));
      expect(opened[1]!.status).toBe(429);
    } finally {
      for (const stream of opened) stream.request.destroy();
    }
  });
});
