import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ConversationMessage } from "../schema/messages.ts";
import type { Tool } from "../tools/tool.ts";
import { countCacheBreakpoints, MAX_CACHE_BREAKPOINTS } from "./cache-control.ts";
import { buildModelRequest } from "./request.ts";

const tool = (name: string): Tool =>
  ({
    name,
    description: `${name} tool`,
    inputSchema: z.object({ file_path: z.string().describe("absolute path"), limit: z.number().int().optional() }),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    call: async () => ({ output: "" }),
  }) as Tool;

const messages: ConversationMessage[] = [
  { type: "user", uuid: "u1", timestamp: "t", message: { role: "user", content: "hi" } },
  { type: "assistant", uuid: "a1", timestamp: "t", message: { id: "m1", role: "assistant", model: "m", content: [{ type: "text", text: "yo" }] } },
  {
    type: "user",
    uuid: "u2",
    timestamp: "t",
    message: {
      role: "user",
      content: [
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ],
    },
  },
];

describe("buildModelRequest", () => {
  it("derives tool JSON Schemas from zod and places three cache breakpoints", () => {
    const request = buildModelRequest({
      model: "m",
      maxOutputTokens: 1000,
      systemPrompt: ["stable prefix", "dynamic context"],
      messages,
      tools: [tool("Read"), tool("Glob")],
      promptCaching: true,
    });
    expect(request.tools![0]).toEqual({
      name: "Read",
      description: "Read tool",
      input_schema: {
        type: "object",
        properties: {
          file_path: { type: "string", description: "absolute path" },
          limit: { type: "integer", minimum: expect.any(Number), maximum: expect.any(Number) },
        },
        required: ["file_path"],
        additionalProperties: false,
      },
    });
    expect(request.tools![1]!.cache_control).toEqual({ type: "ephemeral" });
    expect(request.system[0]!.cache_control).toEqual({ type: "ephemeral" });
    expect(request.system[1]!.cache_control).toBeUndefined();
    const last = request.messages.at(-1)!.content as Array<{ cache_control?: unknown }>;
    expect(last.map((block) => block.cache_control)).toEqual([undefined, { type: "ephemeral" }]);
    expect(countCacheBreakpoints(request)).toBe(3);
    expect(countCacheBreakpoints(request)).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
  });

  it("sends no breakpoints when caching is off, and raises max_tokens above a thinking budget", () => {
    const request = buildModelRequest({
      model: "m",
      maxOutputTokens: 1000,
      systemPrompt: ["p"],
      messages,
      tools: [tool("Read")],
      promptCaching: false,
      thinking: { type: "enabled", budget_tokens: 4000 },
    });
    expect(countCacheBreakpoints(request)).toBe(0);
    expect(request.max_tokens).toBe(5024);
  });
});
