import { describe, expect, it } from "vitest";
import { readEnv } from "./env.ts";

describe("readEnv", () => {
  it("reads the set variables, coerced, and leaves the unset ones undefined", () => {
    const env = readEnv({
      ANTHROPIC_API_KEY: "key",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9/",
      CAIRN_HOME: "/cairn-home",
      CAIRN_MAX_TOOL_USE_CONCURRENCY: "4",
      CAIRN_MAX_THINKING_TOKENS: "0",
      CAIRN_DISABLE_PROMPT_CACHING: "true",
      CAIRN_SHARE_STREAMS: "1/2/3",
      CAIRN_ALLOWED_HOSTS: "a.example, b.example",
      UNRELATED: "ignored",
    });
    expect(env).toMatchObject({
      apiKey: "key",
      baseURL: "http://127.0.0.1:9/",
      cairnHome: "/cairn-home",
      maxToolConcurrency: 4,
      maxThinkingTokens: 0,
      promptCaching: false,
      shareStreams: { perClient: 1, perShare: 2, total: 3 },
      allowedHosts: ["a.example", "b.example"],
      model: undefined,
      maxRetries: undefined,
      dumpPrompts: false,
      autoCompact: true,
    });
  });

  it("treats an empty variable as unset", () => {
    const env = readEnv({ CAIRN_HOME: "/cairn-home", CAIRN_MAX_RETRIES: "", ANTHROPIC_API_KEY: "" });
    expect(env.maxRetries).toBeUndefined();
    expect(env.apiKey).toBeUndefined();
  });

  it("names every bad variable with its problem", () => {
    const read = () =>
      readEnv({ CAIRN_HOME: "/cairn-home", CAIRN_MAX_TOOL_USE_CONCURRENCY: "100", CAIRN_MAX_THINKING_TOKENS: "10", ANTHROPIC_BASE_URL: "not a url" });
    expect(read).toThrow(/^Invalid environment:\n/);
    expect(read).toThrow(/CAIRN_MAX_TOOL_USE_CONCURRENCY: /);
    expect(read).toThrow(/CAIRN_MAX_THINKING_TOKENS: 0 \(thinking off\) or a budget of at least 1024 tokens/);
    expect(read).toThrow(/ANTHROPIC_BASE_URL: /);
  });
});
