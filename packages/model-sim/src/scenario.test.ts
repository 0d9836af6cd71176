import { InternalServerError } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { startModelSim } from "./model-sim.ts";
import { parseScenario, ScenarioError } from "./scenario.ts";
import { baseRequest, postJson, sdkClient, startTestSim } from "./test-helpers.ts";

const hello = { content: [{ type: "text" as const, text: "hello" }] };

describe("scenario validation", () => {
  it("names every problem and where it is", () => {
    const bad = {
      turns: [
        { content: [{ type: "text" }] },
        { content: [], stopReason: "end_turn" },
        { content: [], faults: [{ kind: "http", status: 200 }, { kind: "explode" }] },
      ],
    };
    let thrown: unknown;
    try {
      parseScenario(bad);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ScenarioError);
    const error = thrown as ScenarioError;
    expect(error.code).toBe("invalid_scenario");
    expect(error.message).toContain("model-sim: invalid scenario");
    expect(error.message).toContain("turns[0].content[0].text");
    expect(error.message).toContain('Unrecognized key: "stopReason"');
    expect(error.message).toContain("turns[2].faults[0].status");
    expect(error.message).toContain("turns[2].faults[1]");
  });

  it("is enforced by startModelSim, setScenario and POST /_sim/scenario", async () => {
    await expect(startModelSim({ scenario: { turns: "nope" } as never })).rejects.toThrow(ScenarioError);
    const sim = await startTestSim({ scenario: { turns: [hello] } });
    expect(() => sim.setScenario({ turns: [{ content: [{ type: "tool_use" }] }] } as never)).toThrow(/turns\[0\]/);
    expect(sim.remainingTurns()).toBe(1);

    const rejected = await postJson(sim, "/_sim/scenario", { turns: [{ contents: [] }] });
    expect(rejected.status).toBe(400);
    expect(await rejected.json()).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringContaining("contents") },
    });
    expect(sim.remainingTurns()).toBe(1);
  });
});

describe("scenario exhaustion", () => {
  it("answers 500 with a clear message once every turn is used, and the SDK does not retry it", async () => {
    const sim = await startTestSim({ scenario: { turns: [hello, hello] } });
    const client = sdkClient(sim, { maxRetries: 2 });
    await client.messages.create(baseRequest);
    await client.messages.stream(baseRequest).finalMessage();
    expect(sim.remainingTurns()).toBe(0);

    const error = await client.messages
      .stream(baseRequest)
      .finalMessage()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(500);
    expect(String(error)).toContain("model-sim: scenario exhausted after 2 turns");
    expect(sim.requests).toHaveLength(3);
    expect(sim.requests[2]).toMatchObject({ turnIndex: null, attempt: 1 });
  });

  it("starts exhausted when no scenario is given", async () => {
    const sim = await startTestSim();
    const response = await postJson(sim, "/v1/messages", baseRequest);
    expect(response.status).toBe(500);
    expect(await response.text()).toContain("scenario exhausted after 0 turns");
  });
});

describe("request log and control endpoints", () => {
  it("records method, path, headers, body, time, turn and attempt of every API request", async () => {
    const sim = await startTestSim({
      scenario: { turns: [{ ...hello, faults: [{ kind: "http", status: 529 }] }, hello] },
    });
    const log = sim.requests;
    const client = sdkClient(sim);
    const before = Date.now();
    await client.messages.create(baseRequest).catch(() => undefined);
    await client.messages.create({ ...baseRequest, system: "be brief" });
    await client.messages.stream(baseRequest).finalMessage();

    expect(sim.requests).toBe(log);
    expect(log.map((request) => [request.turnIndex, request.attempt])).toEqual([
      [0, 1],
      [0, 2],
      [1, 1],
    ]);
    const [first, second, third] = log;
    expect(first).toMatchObject({ method: "POST", path: "/v1/messages", body: baseRequest });
    // SDK 1.x sends the key as a bearer token; other clients use x-api-key. Both are accepted.
    expect(first?.headers["x-api-key"] ?? first?.headers["authorization"]).toContain("test");
    expect(first?.headers["anthropic-version"]).toBeDefined();
    expect(first?.receivedAt).toBeGreaterThanOrEqual(before);
    expect(second?.body).toMatchObject({ system: "be brief" });
    expect(third?.body).toMatchObject({ stream: true });
  });

  it("serves the log over GET /_sim/requests and accepts scenario and reset over HTTP", async () => {
    const sim = await startTestSim({ scenario: { turns: [hello] } });
    await sdkClient(sim).messages.create(baseRequest);

    const listed = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as unknown[];
    expect(listed).toEqual(JSON.parse(JSON.stringify(sim.requests)));
    expect(listed).toHaveLength(1);

    const replaced = await postJson(sim, "/_sim/scenario", { turns: [hello, hello, hello] });
    expect(await replaced.json()).toEqual({ ok: true, turns: 3 });
    expect(sim.remainingTurns()).toBe(3);
    await sdkClient(sim).messages.create(baseRequest);
    expect(sim.remainingTurns()).toBe(2);
    expect(sim.requests.at(-1)?.turnIndex).toBe(0);

    const reset = await postJson(sim, "/_sim/reset", {});
    expect(await reset.json()).toEqual({ ok: true });
    expect(sim.remainingTurns()).toBe(3);
    expect(sim.requests).toHaveLength(0);
  });

  it("setScenario rewinds the cursor and fresh faults apply again", async () => {
    const faulty = { turns: [{ ...hello, faults: [{ kind: "http" as const, status: 500 }] }] };
    const sim = await startTestSim({ scenario: faulty });
    const client = sdkClient(sim);
    await expect(client.messages.create(baseRequest)).rejects.toThrow(InternalServerError);
    await client.messages.create(baseRequest);
    sim.setScenario(faulty);
    await expect(client.messages.create(baseRequest)).rejects.toThrow(InternalServerError);
    expect(sim.requests.at(-1)).toMatchObject({ turnIndex: 0, attempt: 1 });
  });
});
