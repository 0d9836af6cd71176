import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { DEMO_PREFIX, demoTurn } from "./demo-model.ts";
import type { MessagesRequest } from "./messages-request.ts";
import { sdkClient, startTestSim } from "./test-helpers.ts";

const claudeCodeTools = ["Glob", "Read", "Grep", "Bash"].map((name) => ({
  name,
  description: `${name} tool`,
  input_schema: { type: "object" as const, properties: {} },
}));

function requestFor(text: string, overrides: Partial<MessagesRequest> = {}): MessagesRequest {
  return {
    model: "claude-demo",
    system: "You are Cairn.\nWorking directory: /home/me/project\nPlatform: linux",
    tools: claudeCodeTools,
    messages: [{ role: "user", content: text }],
    ...overrides,
  };
}

function toolCallOf(text: string, overrides: Partial<MessagesRequest> = {}): unknown {
  return demoTurn(requestFor(text, overrides)).content.find((block) => block.type === "tool_use");
}

function textOf(turn: ReturnType<typeof demoTurn>): string {
  return turn.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

describe("demo model intents", () => {
  it.each([
    ["List the files please", { name: "Glob", input: { pattern: "**/*" } }],
    ["ls", { name: "Glob", input: { pattern: "**/*" } }],
    ["read src/index.ts", { name: "Read", input: { file_path: "/home/me/project/src/index.ts" } }],
    ["Open ./README.md.", { name: "Read", input: { file_path: "/home/me/project/README.md" } }],
    ["show /etc/hosts", { name: "Read", input: { file_path: "/etc/hosts" } }],
    ["search for TODO", { name: "Grep", input: { pattern: "TODO", output_mode: "content", "-n": true } }],
    ["GREP startModelSim", { name: "Grep", input: { pattern: "startModelSim", output_mode: "content", "-n": true } }],
    ["run npm test", { name: "Bash", input: { command: "npm test", description: "Run npm test" } }],
    ["what does `git status` say?", { name: "Bash", input: { command: "git status", description: "Run git status" } }],
  ])("%s → %o", (text, expected) => {
    expect(toolCallOf(text)).toMatchObject({ type: "tool_use", ...expected });
  });

  it("introduces every tool call with an honest demo text block", () => {
    const turn = demoTurn(requestFor("list files"));
    expect(turn.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^\[Demo model\] /) });
  });

  it("reads the working directory from a system prompt given as text blocks, defaulting to '.'", () => {
    const system = [
      { type: "text", text: "Intro" },
      { type: "text", text: "Working directory: /srv/app" },
    ];
    expect(toolCallOf("read a.txt", { system })).toMatchObject({ input: { file_path: "/srv/app/a.txt" } });
    const { system: _dropped, ...withoutSystem } = requestFor("read a.txt");
    expect(demoTurn(withoutSystem).content[1]).toMatchObject({ input: { file_path: "./a.txt" } });
  });

  it("explains itself and how to use a real model when it does not understand", () => {
    const turn = demoTurn(requestFor("Write me a poem about rivers"));
    expect(turn.stop_reason).toBe("end_turn");
    const text = textOf(turn);
    expect(text.startsWith(DEMO_PREFIX)).toBe(true);
    expect(text).toContain("ANTHROPIC_API_KEY");
    expect(text).toContain("ANTHROPIC_BASE_URL");
    for (const phrase of ["list files", "read <path>", "search <word>", "run <command>"]) expect(text).toContain(phrase);
  });

  it("answers in text when the needed tool is not offered", () => {
    const turn = demoTurn(requestFor("run make", { tools: claudeCodeTools.filter((tool) => tool.name !== "Bash") }));
    expect(turn.content).toHaveLength(1);
    expect(textOf(turn)).toMatch(/^\[Demo model\] .*Bash/);
  });

  it("summarises a tool result, naming the tool and showing the first lines", () => {
    const output = Array.from({ length: 30 }, (_, index) => `file-${index}.ts`).join("\n");
    const turn = demoTurn(
      requestFor("", {
        messages: [
          { role: "user", content: "list files" },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Glob", input: { pattern: "**/*" } }] },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: output }] }],
          },
        ],
      }),
    );
    expect(turn.stop_reason).toBe("end_turn");
    const text = textOf(turn);
    expect(text).toMatch(/^\[Demo model\] I ran Glob \(\*\*\/\*\); here is what it returned:\n/);
    expect(text).toContain("file-0.ts");
    expect(text).not.toContain("file-10.ts");
    expect(text).toContain("20 more lines");
  });

  it("says so when the tool failed", () => {
    const turn = demoTurn(
      requestFor("", {
        messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "x", is_error: true, content: "ENOENT" }] }],
      }),
    );
    expect(textOf(turn)).toBe(`${DEMO_PREFIX}I ran the tool, but it failed: ENOENT`);
  });
});

describe("demo mode over HTTP", () => {
  it("drives a tool round trip through the real SDK", async () => {
    const sim = await startTestSim({ mode: "demo" });
    expect(sim.remainingTurns()).toBe(Number.POSITIVE_INFINITY);
    const client = sdkClient(sim);
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "please read notes.md" }];
    const request = { model: "claude-demo", max_tokens: 512, system: "Working directory: /w", tools: claudeCodeTools };

    const first = await client.messages.stream({ ...request, messages }).finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    const toolUse = first.content.find((block) => block.type === "tool_use");
    expect(toolUse).toMatchObject({ name: "Read", input: { file_path: "/w/notes.md" }, id: "toolu_sim_0_1" });

    messages.push({ role: "assistant", content: first.content });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: toolUse?.id ?? "", content: "# Notes\nhello" }] });
    const second = await client.messages.create({ ...request, messages });
    expect(second.stop_reason).toBe("end_turn");
    expect(second.content).toEqual([{ type: "text", text: "[Demo model] I ran Read (/w/notes.md); here is what it returned:\n# Notes\nhello" }]);
    expect(sim.requests.map((recorded) => recorded.turnIndex)).toEqual([0, 1]);
  });
});
