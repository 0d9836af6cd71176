import type { UserMessage } from "../schema/messages.ts";
import { testContext } from "../testing/index.ts";
import type { QueryParams } from "./query-params.ts";

export function prompt(text: string): UserMessage {
  return { type: "user", uuid: "prompt-1", parentUuid: null, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: text } };
}

export function baseParams(overrides: Partial<QueryParams> & Pick<QueryParams, "deps">): QueryParams {
  return {
    messages: [prompt("hello")],
    systemPrompt: ["You are a test agent.", "Working directory: /workspace"],
    tools: [],
    model: "test-model",
    signal: new AbortController().signal,
    context: testContext(),
    ...overrides,
  };
}
