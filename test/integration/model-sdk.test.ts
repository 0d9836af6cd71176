import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicModelClient, query, type AgentEvent, type ModelClient, type QueryDeps, type Terminal, type Tool } from "@cairn/core";
import { httpFetch } from "@cairn/core/node";
import { createTestTool, testContext } from "@cairn/core/testing";
import { startModelSim, type ModelSim, type Scenario } from "@cairn/model-sim";

let sim: ModelSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

type RequestBody = {
  system: Array<{ text: string; cache_control?: unknown }>;
  messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
  tools?: Array<{ name: string; input_schema: Record<string, unknown>; cache_control?: unknown }>;
  max_tokens: number;
};

const runWith =
  (modelFetch: typeof fetch | undefined) =>
  async (scenario: Scenario, tools: Tool[] = [], overrides: Partial<QueryDeps> = {}) => {
    sim = await startModelSim({ scenario });
    const client: ModelClient = createAnthropicModelClient({ apiKey: "test", baseURL: sim.url, ...(modelFetch ? { fetch: modelFetch } : {}) });
    const sleeps: number[] = [];
    const deps: QueryDeps = {
      model: client,
      uuid: () => crypto.randomUUID(),
      now: () => Date.now(),
      random: () => 0,
      sleep: async (ms) => {
        sleeps.push(ms);
        await new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20)));
      },
      compactor: { snip: async () => null, microcompact: async () => null, autocompact: async () => null, reactive: async () => null },
      ...overrides,
    };
    const events: AgentEvent[] = [];
    const generator = query({
      messages: [{ type: "user", uuid: "p1", parentUuid: null, timestamp: new Date().toISOString(), message: { role: "user", content: "Do the thing." } }],
      systemPrompt: ["Stable prefix.", "Working directory: /workspace"],
      tools,
      model: "claude-test",
      signal: new AbortController().signal,
      context: testContext(),
      deps,
    });
    let terminal: Terminal;
    while (true) {
      const step = await generator.next();
      if (step.done) {
        terminal = step.value;
        break;
      }
      events.push(step.value);
    }
    const bodies = sim.requests.filter((request) => request.path === "/v1/messages").map((request) => request.body as RequestBody);
    return { events, terminal, bodies, sleeps, requests: sim.requests };
  };

const textTurn = (text: string) => ({ content: [{ type: "text" as const, text }] });

// Node's fetch (undici), and httpFetch over node:http, which `cairn -p` uses so that undici never loads.
describe.each([
  ["Node's fetch", undefined],
  ["httpFetch", httpFetch],
])("the loop over the real SDK and HTTP (%s), against model-sim", (_name, modelFetch) => {
  const run = runWith(modelFetch);

  it("assembles thinking, text and a tool call whose JSON arrives in chunks", async () => {
    const read = createTestTool({ name: "Read", safe: true, run: (input) => `contents of ${input.value}` });
    const { events, terminal, bodies } = await run(
      {
        turns: [
          {
            content: [
              { type: "thinking", thinking: "I need to read the file first.", signature: "sig-abc" },
              { type: "text", text: "Reading the file now." },
              { type: "tool_use", id: "toolu_1", name: "Read", input: { value: "/workspace/src/a-rather-long-file-name.ts" } },
            ],
          },
          textTurn("All done."),
        ],
      },
      [read],
    );
    expect(terminal.reason).toBe("completed");
    // However the chunks were grouped on the way, the streamed JSON adds up to the call's input.
    const json = events.flatMap((event) => (event.type === "tool-input-delta" ? [event.partialJson] : [])).join("");
    expect(JSON.parse(json)).toEqual({ value: "/workspace/src/a-rather-long-file-name.ts" });
    const assistant = events.find((event) => event.type === "message" && event.message.type === "assistant");
    expect(assistant?.type === "message" && assistant.message.type === "assistant" && assistant.message.message.content).toEqual([
      { type: "thinking", thinking: "I need to read the file first.", signature: "sig-abc" },
      { type: "text", text: "Reading the file now." },
      { type: "tool_use", id: "toolu_1", name: "Read", input: { value: "/workspace/src/a-rather-long-file-name.ts" } },
    ]);
    // What the loop sent back: the assistant turn intact, and the tool_result paired with its call.
    const second = bodies[1]!;
    expect(second.messages[1]!.content[0]).toMatchObject({ type: "thinking", signature: "sig-abc" });
    expect(second.messages[2]!.content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: "contents of /workspace/src/a-rather-long-file-name.ts",
    });
  });

  it("sends cache_control on the system prefix, the last tool and the last message block only", async () => {
    const read = createTestTool({ name: "Read", safe: true });
    const glob = createTestTool({ name: "Glob", safe: true });
    const { bodies } = await run({ turns: [textTurn("hi")] }, [read, glob]);
    const body = bodies[0]!;
    expect(body.system.map((block) => Boolean(block.cache_control))).toEqual([true, false]);
    expect(body.tools!.map((tool) => Boolean(tool.cache_control))).toEqual([false, true]);
    expect(body.tools![0]!.input_schema).toMatchObject({ type: "object", properties: { value: { type: "string" } }, required: ["value"] });
    const lastBlocks = body.messages.at(-1)!.content;
    expect(lastBlocks.at(-1)!.cache_control).toEqual({ type: "ephemeral" });
  });

  it("retries 529, 429 (honouring retry-after) and 500, and reports each retry", async () => {
    const started = Date.now();
    const { events, terminal, sleeps, requests } = await run({
      turns: [
        {
          content: [{ type: "text", text: "after three failures" }],
          faults: [
            { kind: "http", status: 529 },
            { kind: "http", status: 429, retryAfter: 2 },
            { kind: "http", status: 500 },
          ],
        },
      ],
    });
    expect(terminal.reason).toBe("completed");
    const retries = events.filter((event) => event.type === "retry");
    expect(retries.map((event) => event.type === "retry" && [event.status, event.errorCode])).toEqual([
      [529, "overloaded"],
      [429, "rate_limited"],
      [500, "server_error"],
    ]);
    expect(sleeps).toEqual([500, 2_000, 2_000]);
    expect(requests.filter((request) => request.path === "/v1/messages").map((request) => request.attempt)).toEqual([1, 2, 3, 4]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("keeps the text of a stream cut by an error event and continues with a resume note", async () => {
    const { events, terminal, bodies } = await run({
      turns: [
        {
          content: [{ type: "text", text: "Here is the first part of a long answer that gets cut." }],
          faults: [{ kind: "stream-error", afterEvents: 6, errorType: "api_error" }],
        },
        textTurn(" And the rest."),
      ],
    });
    expect(terminal.reason).toBe("completed");
    const partial = events.find((event) => event.type === "message" && event.message.type === "assistant");
    expect(partial?.type === "message" && partial.message).toMatchObject({ isPartial: true });
    const resumed = bodies[1]!;
    expect(resumed.messages[1]!.role).toBe("assistant");
    expect(String(resumed.messages[1]!.content[0]!.text)).toMatch(/^Here is the first/);
    expect(String(resumed.messages[2]!.content[0]!.text)).toContain("cut off");
  });

  it("retries a dropped connection before any content", async () => {
    const { terminal, events } = await run({
      turns: [{ content: [{ type: "text", text: "reconnected" }], faults: [{ kind: "disconnect", afterEvents: 0 }] }],
    });
    expect(terminal.reason).toBe("completed");
    expect(events.some((event) => event.type === "retry" && event.errorCode === "connection")).toBe(true);
  });

  it("runs parallel read-only calls and pairs every result in the next request", async () => {
    const read = createTestTool({ name: "Read", safe: true, run: async (input) => (await new Promise((r) => setTimeout(r, 30)), input.value) });
    const { bodies } = await run(
      {
        turns: [
          { content: ["a", "b", "c"].map((value, index) => ({ type: "tool_use" as const, id: `toolu_${index}`, name: "Read", input: { value } })) },
          textTurn("done"),
        ],
      },
      [read],
    );
    const results = bodies[1]!.messages[2]!.content;
    expect(results.map((block) => [block.type, block.tool_use_id, block.content])).toEqual([
      ["tool_result", "toolu_0", "a"],
      ["tool_result", "toolu_1", "b"],
      ["tool_result", "toolu_2", "c"],
    ]);
  });

  it("leaves no abort listener on the caller's signal after each request, however many turns", async () => {
    sim = await startModelSim({ scenario: { turns: Array.from({ length: 15 }, (_, index) => textTurn(`turn ${index}`)) } });
    const client = createAnthropicModelClient({ apiKey: "test", baseURL: sim.url, ...(modelFetch ? { fetch: modelFetch } : {}) });
    const session = new AbortController();
    const request = { model: "claude-test", max_tokens: 100, system: [], messages: [{ role: "user" as const, content: "hi" }] };
    for (let turn = 0; turn < 15; turn++) {
      const parts = [];
      for await (const part of client.stream(request as never, { signal: session.signal })) parts.push(part.type);
      expect(parts).toContain("message-stop");
    }
    expect(getEventListeners(session.signal, "abort")).toHaveLength(0);
    // A request still aborts through the caller's signal.
    const stream = client.stream(request as never, { signal: session.signal })[Symbol.asyncIterator]();
    session.abort();
    await expect(stream.next()).rejects.toMatchObject({ code: "aborted" });
  });

  it("aborts a stream that stalls mid-body, and the next request on the client still works", async () => {
    sim = await startModelSim({
      scenario: {
        turns: [{ content: [{ type: "text", text: "a long answer that stalls" }], faults: [{ kind: "stall", afterEvents: 3, ms: 30_000 }] }, textTurn("next")],
      },
    });
    const client = createAnthropicModelClient({ apiKey: "test", baseURL: sim.url, ...(modelFetch ? { fetch: modelFetch } : {}) });
    const request = { model: "claude-test", max_tokens: 100, system: [], messages: [{ role: "user" as const, content: "hi" }] };
    const session = new AbortController();
    const parts: string[] = [];
    const reading = (async () => {
      for await (const part of client.stream(request as never, { signal: session.signal })) {
        parts.push(part.type);
        if (part.type === "block-start") session.abort();
      }
    })();
    await expect(reading).rejects.toMatchObject({ code: "aborted" });
    // What the stalled stream had sent, and nothing after it.
    expect(parts.slice(0, 2)).toEqual(["message-start", "block-start"]);
    expect(parts).not.toContain("message-stop");
    const next: string[] = [];
    for await (const part of client.stream(request as never, { signal: new AbortController().signal })) next.push(part.type);
    expect(next.at(-1)).toBe("message-stop");
  });

  it("reports a 4xx answer as the API's error with its message and request id", async () => {
    sim = await startModelSim({
      scenario: { turns: [{ content: [], faults: [{ kind: "http", status: 400, errorType: "invalid_request_error", message: "max_tokens: too large" }] }] },
    });
    const client = createAnthropicModelClient({ apiKey: "test", baseURL: sim.url, ...(modelFetch ? { fetch: modelFetch } : {}) });
    const request = { model: "claude-test", max_tokens: 100, system: [], messages: [{ role: "user" as const, content: "hi" }] };
    const stream = client.stream(request as never, { signal: new AbortController().signal })[Symbol.asyncIterator]();
    await expect(stream.next()).rejects.toMatchObject({ code: "invalid_request", status: 400, message: "max_tokens: too large" });
  });
});
