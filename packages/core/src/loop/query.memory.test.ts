import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createFakeMemoryFs } from "../memory/fake-memory-fs.ts";
import { createSessionMemory, MEMORY_SERVICE } from "../memory/session-memory.ts";
import { createSkillTool } from "../skills/skill-tool.ts";
import { collectEvents, createScriptedModel, eventsOf, testContext, testDeps } from "../testing/index.ts";
import type { Tool } from "../tools/tool.ts";
import { baseParams } from "./query-test-params.ts";
import { query } from "./query.ts";

const WS = "/ws";
const firstUserText = (request: { messages: Array<{ role: string; content: unknown }> }) => JSON.stringify(request.messages[0]!.content);

/** A file tool in Claude Code's shape: `file_path` in, the path out. */
const fileTool: Tool<{ file_path: string }, string> = {
  name: "Touch",
  description: "Touches a file",
  inputSchema: z.object({ file_path: z.string() }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async call(input) {
    return { output: `touched ${input.file_path}` };
  },
};

function setup(files: Record<string, string>) {
  const fake = createFakeMemoryFs(files);
  const memory = createSessionMemory({
    fs: fake.fs,
    workspaceRoot: WS,
    homeDir: "/home/u",
    cairnHome: "/home/u/.cairn",
    today: () => "2026-12-01",
    trusted: () => true,
  });
  const base = testContext();
  return { ...fake, memory, context: { ...base, services: { [MEMORY_SERVICE]: memory } }, store: base.store };
}

describe("query: memory files and skills", () => {
  it("puts the memory reminder in the first user message of every request and picks up an edit between turns", async () => {
    const { memory, context, write } = setup({ [`${WS}/CLAUDE.md`]: "Always answer in French." });
    const editing: Tool<{ file_path: string }, string> = {
      ...fileTool,
      name: "EditMemory",
      async call() {
        write(`${WS}/CLAUDE.md`, "Always answer in German.");
        return { output: "edited" };
      },
    };
    const model = createScriptedModel([
      { content: [{ type: "tool_use", id: "toolu_1", name: "EditMemory", input: { file_path: `${WS}/CLAUDE.md` } }] },
      { content: [{ type: "text", text: "Fertig." }] },
    ]);
    const { events } = await collectEvents(query(baseParams({ deps: testDeps(model), memory, context, tools: [editing] })));
    expect(firstUserText(model.requests[0]!)).toContain("Always answer in French.");
    expect(firstUserText(model.requests[0]!)).toContain("hello");
    expect(firstUserText(model.requests[1]!)).toContain("Always answer in German.");
    expect(firstUserText(model.requests[1]!)).not.toContain("French");
    // The reminder is built per request, never written into the conversation.
    expect(eventsOf(events, "message").some((event) => JSON.stringify(event.message).includes("claudeMd"))).toBe(false);
  });

  it("yields a notice for a cut memory file and a skipped import", async () => {
    const { memory, context } = setup({ [`${WS}/CLAUDE.md`]: `@missing.md\n${"y".repeat(40_001)}` });
    const model = createScriptedModel([{ content: [{ type: "text", text: "ok" }] }]);
    const { events } = await collectEvents(query(baseParams({ deps: testDeps(model), memory, context })));
    expect(
      eventsOf(events, "notice")
        .map((event) => event.code)
        .sort(),
    ).toEqual(["memory_import_missing", "memory_truncated"]);
  });

  it("attaches a subdirectory's CLAUDE.md to the first file tool result below it, once", async () => {
    const { memory, context } = setup({ [`${WS}/src/CLAUDE.md`]: "src: use named exports", [`${WS}/src/a.ts`]: "", [`${WS}/src/b.ts`]: "" });
    const model = createScriptedModel([
      { content: [{ type: "tool_use", id: "toolu_a", name: "Touch", input: { file_path: `${WS}/src/a.ts` } }] },
      { content: [{ type: "tool_use", id: "toolu_b", name: "Touch", input: { file_path: `${WS}/src/b.ts` } }] },
      { content: [{ type: "text", text: "done" }] },
    ]);
    await collectEvents(query(baseParams({ deps: testDeps(model), memory, context, tools: [fileTool] })));
    const resultOf = (index: number) => JSON.stringify(model.requests[index]!.messages.at(-1)!.content);
    expect(firstUserText(model.requests[0]!)).not.toContain("named exports");
    expect(resultOf(1)).toContain("touched /ws/src/a.ts");
    expect(resultOf(1)).toContain(`Contents of ${WS}/src/CLAUDE.md`);
    expect(resultOf(1)).toContain("src: use named exports");
    expect(resultOf(2)).toContain("touched /ws/src/b.ts");
    expect(resultOf(2)).not.toContain("named exports");
  });

  it("the Skill tool loads the body with $ARGUMENTS, states the directory and grants allowed-tools", async () => {
    const { memory, context, store } = setup({
      [`${WS}/.claude/skills/release-notes/SKILL.md`]:
        "---\ndescription: Writes release notes\nallowed-tools: Bash(git log:*)\n---\nWrite notes for version $ARGUMENTS using template.md.\n",
      [`${WS}/.claude/skills/manual/SKILL.md`]: "---\ndescription: By hand only\ndisable-model-invocation: true\n---\nmanual",
    });
    const model = createScriptedModel([
      { content: [{ type: "tool_use", id: "toolu_s", name: "Skill", input: { skill: "release-notes", args: "v1.2.0" } }] },
      { content: [{ type: "tool_use", id: "toolu_m", name: "Skill", input: { skill: "manual" } }] },
      { content: [{ type: "tool_use", id: "toolu_u", name: "Skill", input: { skill: "nope" } }] },
      { content: [{ type: "text", text: "done" }] },
    ]);
    await collectEvents(query(baseParams({ deps: testDeps(model), memory, context, tools: [createSkillTool()] })));
    expect(firstUserText(model.requests[0]!)).toContain("- release-notes: Writes release notes");
    const result = (index: number) => model.requests[index]!.messages.at(-1)!.content as Array<{ type: string; content?: unknown; is_error?: boolean }>;
    expect(result(1)[0]!.content).toBe(
      `Launching skill: release-notes\n\nBase directory for this skill: ${WS}/.claude/skills/release-notes\n\nWrite notes for version v1.2.0 using template.md.\n\nAllowed without asking while this skill is in use: Bash(git log:*)`,
    );
    expect(store.getState().sessionAllowRules).toEqual(["Bash(git log:*)"]);
    expect(result(2)[0]).toMatchObject({ is_error: true, content: expect.stringContaining("can only be invoked by the user, as /manual") });
    expect(result(3)[0]).toMatchObject({ is_error: true, content: expect.stringContaining('Unknown skill "nope". Available skills: release-notes') });
    expect(memory.releaseGrants()).toEqual(["Bash(git log:*)"]);
  });
});
