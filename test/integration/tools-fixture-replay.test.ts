import { readFile, utimes } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { query, type AgentEvent, type Terminal } from "@cairn/core";
import { createScriptedModel, testContext, testDeps, type ScriptedTurn } from "@cairn/core/testing";
import { createToolsFixture, type ToolsFixture } from "./tools-support.ts";

/**
 * Replays Claude Code's own transcript (explore-edit.jsonl) through Cairn's loop with the built-in
 * tools on the real worker: the same tool calls must produce the same tool_result text.
 */
const fixturePath = fileURLToPath(new URL("../../packages/core/src/node/__fixtures__/claude-code/explore-edit.jsonl", import.meta.url));

type Line = { type: string; message?: { content: unknown } };
type Block = { type: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: unknown };

async function loadFixture(): Promise<{ calls: Block[]; results: Map<string, string> }> {
  const lines = (await readFile(fixturePath, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);
  const blocks = lines.flatMap((line) => (Array.isArray(line.message?.content) ? (line.message.content as Block[]) : []));
  const results = new Map<string, string>();
  for (const block of blocks) if (block.type === "tool_result" && typeof block.content === "string") results.set(block.tool_use_id ?? "", block.content);
  return { calls: blocks.filter((block) => block.type === "tool_use"), results };
}

function projectFiles(): Record<string, string> {
  const files: Record<string, string> = {
    "README.md": "# sample\n",
    "package.json": "{}\n",
    "src/math.ts":
      "// Small math helpers used by the sample app.\n\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n\n// TODO: handle division by zero\nexport function divide(a: number, b: number): number {\n  return a / b;\n}\n",
    "src/greet.ts": "export function greet(name: string): string {\n  // TODO: localize the greeting\n  return `Hello, ${name}`;\n}\n",
    "src/index.ts": 'import { greet } from "./greet";\n\nconst name = "world";\n// TODO: read the name from argv\nconsole.log(greet(name));\n',
  };
  for (let index = 1; index <= 30; index++) {
    const id = String(index).padStart(2, "0");
    files[`src/lib/mod${id}.ts`] =
      `// Module ${id}.\n\nexport function describe${id}(): string {\n  return "module ${id}";\n  // TODO: richer description for module ${id}\n}\n`;
  }
  return files;
}

let fixture: ToolsFixture | undefined;
afterEach(async () => {
  await fixture?.dispose();
  fixture = undefined;
});

describe("replaying Claude Code's explore-edit transcript", () => {
  it("gives the model the same tool results Claude Code gave", async () => {
    const { calls, results } = await loadFixture();
    expect(calls.map((call) => call.name)).toEqual(["Glob", "Grep", "Read", "Edit", "Bash"]);
    fixture = await createToolsFixture(projectFiles());
    // Glob lists newest first; date the files so that order is the transcript's.
    const globbed = (results.get(calls[0]?.id ?? "") ?? "").split("\n");
    for (const [rank, name] of globbed.entries()) {
      const time = new Date(Date.now() - rank * 60_000);
      await utimes(join(fixture.root, name), time, time);
    }
    const withRoot = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll("{{WS}}", fixture!.root)) as unknown;
    const toolUse = (call: Block) => ({ type: "tool_use" as const, id: call.id ?? "", name: call.name ?? "", input: withRoot(call.input) });
    const [glob, grep, read, edit, bash] = calls as [Block, Block, Block, Block, Block];
    const turns: ScriptedTurn[] = [
      { content: [{ type: "text", text: "Looking around." }, toolUse(glob), toolUse(grep), toolUse(read)] },
      { content: [toolUse(edit)] },
      { content: [toolUse(bash)] },
      { content: [{ type: "text", text: "Done." }] },
    ];
    const generator = query({
      messages: [{ type: "user", uuid: "p1", parentUuid: null, timestamp: new Date().toISOString(), message: { role: "user", content: "Fix the TODO." } }],
      systemPrompt: ["You are a test."],
      tools: fixture.tools,
      model: "claude-test",
      signal: new AbortController().signal,
      context: testContext({ workspace: fixture.workspace }),
      deps: testDeps(createScriptedModel(turns)),
    });
    const events: AgentEvent[] = [];
    let terminal: Terminal;
    for (;;) {
      const step = await generator.next();
      if (step.done) {
        terminal = step.value;
        break;
      }
      events.push(step.value);
    }
    expect(terminal.reason).toBe("completed");
    const produced = new Map<string, unknown>();
    for (const event of events) {
      if (event.type !== "message" || event.message.type !== "user" || !Array.isArray(event.message.message.content)) continue;
      for (const block of event.message.message.content as Block[]) if (block.type === "tool_result") produced.set(block.tool_use_id ?? "", block.content);
    }
    for (const call of calls) {
      const expected = (results.get(call.id ?? "") ?? "").replaceAll("{{WS}}", fixture.root);
      expect(produced.get(call.id ?? ""), call.name).toBe(expected);
    }
  });
});
