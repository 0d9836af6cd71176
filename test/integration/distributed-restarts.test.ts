import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CairnServer } from "@cairn/api";
import { apiClient, eventually, EventsSubscriber } from "./api-harness.ts";
import { type DistributedServices, startDistributedServices, startInProcessNode } from "./distributed-harness.ts";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** One API node over PostgreSQL and Redis: restarting Redis, then PostgreSQL, between the prompts of one session loses nothing. */
describe("distributed mode: Redis and PostgreSQL restarts during a session", () => {
  let services: DistributedServices;
  let server: CairnServer;

  beforeAll(async () => {
    services = await startDistributedServices({
      name: "restarts",
      scenario: { turns: [text("first answer"), text("second answer"), text("third answer")] },
    });
    server = await startInProcessNode(services, "restarts");
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await services?.stop();
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
    // A tab follows the session throughout and is sent every answer, across both restarts.
    const tab = new EventsSubscriber(server.url, server.token, sessionId);
    const answers = () =>
      tab
        .events()
        .flatMap((event) => (event.type === "text-delta" ? [event.text] : []))
        .join("");
    await run("before the restarts");
    await eventually(() => expect(answers()).toContain("first answer"), 30_000);

    await services.redis.restart({ downMs: 1_000 });
    await eventually(ready, 30_000);
    await run("after Redis came back");
    await eventually(() => expect(answers()).toContain("second answer"), 30_000);

    await services.database.restart({ downMs: 1_000 });
    await eventually(ready, 30_000);
    await run("after PostgreSQL came back");
    await eventually(() => expect(answers()).toContain("third answer"), 30_000);
    await tab.stop();
    expect(tab.errors).toEqual([]);

    const loaded = await server.runtime.transcripts.load(sessionId);
    expect(loaded?.messages.map((message) => message.type)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(JSON.stringify(loaded?.messages)).toContain("third answer");
    expect(services.sim.requests.filter((request) => request.path === "/v1/messages")).toHaveLength(3);
  }, 150_000);
});
