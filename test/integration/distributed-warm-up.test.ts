import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { childProcesses } from "@cairn/worker";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServeProcess, type ServeProcess } from "../support/serve-process.ts";
import { freePort } from "../support/worker-process.ts";
import { apiClient, eventually, send } from "./api-harness.ts";
import { type DistributedServices, startDistributedServices } from "./distributed-harness.ts";
import { text } from "./share-support.ts";

/** A program whose one array-literal site makes arrays that all live on: V8 tenures it. */
const TENURED_SITE =
  "const keep = []; function make(i) { return [i, i + 1, { a: i }]; } function fill(n) { for (let i = 0; i < n; i++) keep.push(make(i)); } for (let round = 0; round < 100; round++) fill(20000);";
/** Node prints V8's pretenuring decisions with both flags (the first alone prints nothing in Node 20). */
const TRACE_PRETENURING = ["--trace-pretenuring", "--trace-pretenuring-statistics"];

type WarmedUp = { msg: string; nodeId: string; deltas: number; elapsedMs: number };

/**
 * `cairn serve` in distributed mode runs scratch sessions through its own code before it reports ready (warm-up on by
 * default): meanwhile /readyz says 503, and afterwards nothing of it is left where the cluster or the machine would
 * see it (no session, no Redis stream, no request to the configured model, no temporary folder).
 */
describe("distributed mode: a node warms up before it reports ready", () => {
  let services: DistributedServices;
  let warmed: ServeProcess | undefined;
  let cold: ServeProcess | undefined;
  let redis: Redis;
  const readyzWhileStarting: number[] = [];

  beforeAll(async () => {
    services = await startDistributedServices({ name: "warm-up", scenario: { turns: [text("Warm enough.")] } });
    redis = new Redis(services.redis.url);
    const { parent, workspace, sim, database } = services;
    const common = { parent, workspace, modelUrl: sim.url, databaseUrl: database.url, redisUrl: services.redis.url };
    const tmp = join(parent, "tmp-warm");
    await mkdir(tmp);
    // The user's own hooks ($CAIRN_HOME/settings.json): the warm-up's scratch sessions must not run them (a real session does).
    await mkdir(join(parent, "node-warm", ".cairn"), { recursive: true });
    const hook = { type: "command", command: `echo prompt >> '${join(workspace, "user-hook-ran")}'` };
    await writeFile(join(parent, "node-warm", ".cairn", "settings.json"), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [hook] }] } }));
    const port = await freePort();
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const status = await send(`http://127.0.0.1:${port}/readyz`).then(
          (response) => response.status,
          () => 0,
        );
        if (status !== 0) readyzWhileStarting.push(status);
        if (status === 200) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    try {
      // V8 prints each pretenuring decision it makes (there should be no tenuring: see the test below).
      warmed = await startServeProcess({ ...common, nodeId: "warm", port, warmUp: true, env: { TMPDIR: tmp }, nodeArgs: TRACE_PRETENURING });
    } finally {
      polling = false;
      await poll;
    }
    cold = await startServeProcess({ ...common, nodeId: "cold" });
  }, 180_000);

  afterAll(async () => {
    redis?.disconnect();
    await Promise.all([warmed?.stop(), cold?.stop()]);
    await services?.stop();
  });

  it("answers /readyz 503 until its warm-up ran, and logs what it ran", async () => {
    // Answered "starting" while the scratch sessions ran (the port opens before they start), then ready.
    expect(readyzWhileStarting.filter((status) => status === 503).length).toBeGreaterThan(0);
    expect(readyzWhileStarting.every((status) => status === 503 || status === 200)).toBe(true);
    const lines = warmed!
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("{"));
    const done = lines.map((line) => JSON.parse(line) as WarmedUp).find((line) => line.msg === "warmed up");
    expect(done).toMatchObject({ nodeId: "warm", deltas: 3 * 20 * 120 });
    expect(done!.elapsedMs).toBeGreaterThan(0);
    console.log(`# warm-up: ${done!.deltas} deltas in ${done!.elapsedMs} ms`);
    expect(cold!.stderr()).not.toContain("warmed up");
  });

  it("has V8 tenure no allocation site, not even through the warm-up's burst (allocation-site pretenuring is off)", () => {
    // This Node prints its decisions on stdout under --trace-pretenuring: a site whose arrays all survive is tenured.
    const control = execFileSync(process.execPath, [...TRACE_PRETENURING, "-e", TENURED_SITE], { encoding: "utf8" });
    expect(control).toMatch(/pretenuring: AllocationSite.*=> tenure/);
    // The node ran 7,200 deltas through its code under the flags: with pretenuring on, V8 had tenured dozens of sites
    // by then. Off, it tenures none (a look at a few sites while the bundle loads, before `cairn serve` reads its
    // arguments and turns it off, may still be printed, but no site is switched).
    const stdout = warmed!.stdout();
    expect(stdout).toContain("also at http://127.0.0.1:");
    expect(stdout).not.toMatch(/=> tenure/);
  });

  it("leaves no session, stream, model request, hook run, temporary folder or process behind", async () => {
    expect(existsSync(join(services.workspace, "user-hook-ran"))).toBe(false);
    expect(await apiClient(warmed!.url, warmed!.token).session.list.query()).toEqual([]);
    expect(await redis.keys("cairn:warm-up:*")).toEqual([]);
    expect(await redis.keys("*")).toEqual(expect.not.arrayContaining([expect.stringMatching(/^cairn:events:/)]));
    // Its scratch sessions had a model of their own: the configured one has not been called.
    expect(services.sim.requests).toHaveLength(0);
    // The scratch servers' folders are gone; the node's own worker keeps its one private folder.
    const left = await readdir(join(services.parent, "tmp-warm"));
    expect(left.filter((name) => name.startsWith("cairn-warm-up-"))).toEqual([]);
    expect(left.filter((name) => name.startsWith("cairn-")).length).toBeLessThanOrEqual(1);
    // The scratch servers' worker processes are gone: the node's own worker is its only child.
    expect(await childProcesses(warmed!.child.pid!)).toHaveLength(1);
  });

  it("then runs a real session like any node, seen from the other node", async () => {
    const client = apiClient(warmed!.url, warmed!.token);
    const { sessionId } = await client.session.create.mutate();
    await client.session.send.mutate({ sessionId, prompt: "Warm?" });
    await eventually(async () => expect((await client.session.get.query({ sessionId })).running).toBe(false), 30_000);
    const listedOnCold = await apiClient(cold!.url, cold!.token).session.list.query();
    expect(listedOnCold.map((session) => session.sessionId)).toEqual([sessionId]);
    expect(JSON.stringify((await client.session.get.query({ sessionId })).messages)).toContain("Warm enough.");
    expect(await readFile(join(services.workspace, "user-hook-ran"), "utf8")).toBe("prompt\n");
  });
});
