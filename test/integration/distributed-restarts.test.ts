import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type CairnServer } from "@cairn/api";
import { startPrivatePostgres, startPrivateRedis, type PrivateService } from "@cairn/api/distributed-testing";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { apiClient, eventually } from "./api-harness.ts";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** One API node over PostgreSQL and Redis: restarting Redis, then PostgreSQL, between the prompts of one session loses nothing. */
describe("distributed mode: Redis and PostgreSQL restarts during a session", () => {
  let database: PrivateService;
  let redis: PrivateService;
  let sim: ModelSim;
  let parent: string;
  let server: CairnServer;

  beforeAll(async () => {
    [database, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    sim = await startModelSim({ scenario: { turns: [text("first answer"), text("second answer"), text("third answer")] } });
    parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-dist-restarts-")));
    await mkdir(join(parent, "ws"));
    await mkdir(join(parent, "home"));
    server = await startServer({
      workspace: join(parent, "ws"),
      cairnHome: join(parent, "home"),
      version: "0.0.0-test",
      apiKey: "test",
      baseURL: sim.url,
      model: "sim-model",
      port: 0,
      webDir: null,
      checkpoints: false,
      managedSettingsPath: join(parent, "no-managed-settings.json"),
      maxRetries: 1,
      promptCaching: false,
      distributed: { databaseUrl: database.url, redisUrl: redis.url, workerUrls: [], nodeId: "restarts" },
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await sim?.close();
    await Promise.all([database?.stop(), redis?.stop()]);
    await rm(parent, { recursive: true, force: true });
  });

  it("answers the next prompt once each service is back, with every earlier line kept", async () => {
    const client = apiClient(server.url, server.token);
    const ready = async () => {
      const response = await fetch(`${server.url}/readyz`);
      expect(response.status).toBe(200);
    };
    const run = async (prompt: string) => {
      await client.session.send.mutate({ sessionId, prompt });
      await eventually(async () => expect((await client.session.get.query({ sessionId })).running).toBe(false), 30_000);
    };
    const { sessionId } = await client.session.create.mutate();
    await run("before the restarts");

    await redis.restart({ downMs: 1_000 });
    await eventually(ready, 30_000);
    await run("after Redis came back");

    await database.restart({ downMs: 1_000 });
    await eventually(ready, 30_000);
    await run("after PostgreSQL came back");

    const loaded = await server.runtime.transcripts.load(sessionId);
    expect(loaded?.messages.map((message) => message.type)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(JSON.stringify(loaded?.messages)).toContain("third answer");
    expect(sim.requests.filter((request) => request.path === "/v1/messages")).toHaveLength(3);
  }, 150_000);
});
