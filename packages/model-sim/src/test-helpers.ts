// Shared by the *.test.ts files: a simulator per test, closed when the test finishes.
import Anthropic from "@anthropic-ai/sdk";
import { onTestFinished } from "vitest";
import { startModelSim, type ModelSim, type ModelSimOptions } from "./model-sim.ts";
import type { SseEvent } from "./sse-events.ts";

export async function startTestSim(options: ModelSimOptions = {}): Promise<ModelSim> {
  const sim = await startModelSim(options);
  onTestFinished(() => sim.close());
  return sim;
}

export function sdkClient(sim: ModelSim, options: { maxRetries?: number } = {}): Anthropic {
  return new Anthropic({ apiKey: "test", baseURL: sim.url, maxRetries: options.maxRetries ?? 0 });
}

export const baseRequest = {
  model: "claude-sim-test",
  max_tokens: 1024,
  messages: [{ role: "user" as const, content: "Hello" }],
};

export function postJson(sim: ModelSim, path: string, body: unknown): Promise<Response> {
  return fetch(`${sim.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "test" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Streams a request with plain fetch and returns the raw SSE events, parsed independently of the SDK. */
export async function rawStreamEvents(sim: ModelSim, body: object = baseRequest): Promise<SseEvent[]> {
  const response = await postJson(sim, "/v1/messages", { ...body, stream: true });
  if (response.headers.get("content-type")?.startsWith("text/event-stream") !== true) {
    throw new Error(`expected an event stream, got ${response.status} ${await response.text()}`);
  }
  return parseSse(await response.text());
}

export function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.trim().length > 0)
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (event === undefined || data === undefined) throw new Error(`malformed SSE frame: ${frame}`);
      return { event, data: JSON.parse(data) as unknown };
    });
}
