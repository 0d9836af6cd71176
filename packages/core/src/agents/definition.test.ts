import { describe, expect, it } from "vitest";
import { createMemoryWorkspace } from "../testing/memory-workspace.ts";
import { generalPurposeAgent, parseAgentFile } from "./definition.ts";
import { loadAgentDefinitions } from "./load.ts";
import { subagentTools } from "./subagent-service.ts";
import type { Tool } from "../tools/tool.ts";

const reviewer = `---
name: code-reviewer
description: "Expert code reviewer.\\nUse proactively after writing code."
tools: Read, Grep, Glob, Bash(git diff:*)
model: sonnet
color: blue
---

You are a senior code reviewer.
Check for bugs.
`;

describe("agent definitions", () => {
  it("parses Claude Code's agent file: name, description, comma tool list, model, body as the system prompt", async () => {
    const parsed = await parseAgentFile(reviewer, "/w/.claude/agents/reviewer.md");
    expect(parsed).toEqual({
      definition: {
        agentType: "code-reviewer",
        description: "Expert code reviewer.\nUse proactively after writing code.",
        tools: ["Read", "Grep", "Glob", "Bash"],
        model: "sonnet",
        systemPrompt: "You are a senior code reviewer.\nCheck for bugs.",
        source: "project",
        path: "/w/.claude/agents/reviewer.md",
      },
    });
  });

  it("reads YAML tool lists, keeps (…) commas together, and treats * or inherit as the defaults", async () => {
    const listed = await parseAgentFile("---\nname: a\ndescription: d\ntools:\n  - Read\n  - 'Grep'  # search\n---\nbody", "a.md");
    expect(listed).toMatchObject({ definition: { tools: ["Read", "Grep"] } });
    const inline = await parseAgentFile('---\nname: a\ndescription: d\ntools: [Read, "Bash(git add, git commit)"]\n---\n', "a.md");
    expect(inline).toMatchObject({ definition: { tools: ["Read", "Bash"] } });
    const star = await parseAgentFile('---\nname: a\ndescription: d\ntools: "*"\nmodel: inherit\n---\nprompt', "a.md");
    expect(star).toEqual({ definition: { agentType: "a", description: "d", systemPrompt: "prompt", source: "project", path: "a.md" } });
  });

  it("reports malformed YAML as a problem of that file", async () => {
    expect(await parseAgentFile("---\nname: [a\ndescription: d\n---\n", "x.md")).toMatchObject({
      problem: { path: "x.md", message: expect.stringContaining("front matter is not valid YAML") },
    });
  });

  it("reports files without front matter, name or description", async () => {
    expect(await parseAgentFile("just text", "x.md")).toEqual({ problem: { path: "x.md", message: "no front matter (--- name: … description: … ---)" } });
    expect(await parseAgentFile("---\ndescription: d\n---\n", "x.md")).toMatchObject({ problem: { message: 'missing "name" in the front matter' } });
    expect(await parseAgentFile("---\nname: x\n---\n", "x.md")).toMatchObject({ problem: { message: 'missing "description" in the front matter' } });
    expect(await parseAgentFile("---\nname: has space\ndescription: d\n---\n", "x.md")).toMatchObject({
      problem: { message: expect.stringContaining("agentType") },
    });
  });

  it("loads .claude/agents/*.md through the workspace, after the built-in general-purpose agent", async () => {
    const workspace = createMemoryWorkspace({
      "/workspace/.claude/agents/reviewer.md": reviewer,
      "/workspace/.claude/agents/broken.md": "no front matter",
      "/workspace/.claude/agents/notes.txt": "ignored",
    });
    const { definitions, problems } = await loadAgentDefinitions(workspace);
    expect(definitions.map((definition) => definition.agentType)).toEqual(["general-purpose", "code-reviewer"]);
    expect(definitions[0]).toBe(generalPurposeAgent);
    expect(problems).toEqual([{ path: "/workspace/.claude/agents/broken.md", message: "no front matter (--- name: … description: … ---)" }]);
  });

  it("has only the built-in agent when the workspace defines none", async () => {
    const { definitions, problems } = await loadAgentDefinitions(createMemoryWorkspace({}));
    expect(definitions.map((definition) => definition.agentType)).toEqual(["general-purpose"]);
    expect(problems).toEqual([]);
  });
});

describe("subagent tools", () => {
  const tool = (name: string) => ({ name }) as Tool;
  const parent = ["Read", "Edit", "Bash", "Agent", "Task", "ExitPlanMode", "TodoWrite"].map(tool);

  it("gives the general-purpose agent every parent tool but Agent and ExitPlanMode", () => {
    expect(subagentTools(generalPurposeAgent, parent).map((t) => t.name)).toEqual(["Read", "Edit", "Bash", "TodoWrite"]);
  });

  it("narrows to the definition's list and never grants Agent or ExitPlanMode by name", () => {
    const definition = { ...generalPurposeAgent, tools: ["Read", "ExitPlanMode", "Agent", "Missing"] };
    expect(subagentTools(definition, parent).map((t) => t.name)).toEqual(["Read"]);
  });
});
