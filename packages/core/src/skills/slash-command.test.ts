import { describe, expect, it } from "vitest";
import type { SkillDefinition } from "./definition.ts";
import { parseSlashCommand, renderSlashHelp, resolveSlashCommand } from "./slash-command.ts";

const skill: SkillDefinition = {
  name: "release-notes",
  kind: "skill",
  source: "project",
  description: "Writes release notes",
  path: "/ws/.claude/skills/release-notes/SKILL.md",
  directory: "/ws/.claude/skills/release-notes",
  allowedTools: [],
  disableModelInvocation: false,
  argumentHint: "<version>",
};
const catalog = {
  skills: [skill],
  problems: [{ name: "broken", kind: "skill" as const, path: "/ws/.claude/skills/broken/SKILL.md", reason: "invalid YAML front matter: x" }],
};

describe("slash commands", () => {
  it("parses /name and its arguments, and leaves paths and prose alone", () => {
    expect(parseSlashCommand("/release-notes v1.2 final")).toEqual({ name: "release-notes", args: "v1.2 final" });
    expect(parseSlashCommand("  /help  ")).toEqual({ name: "help", args: "" });
    expect(parseSlashCommand("/usr/bin/env is broken")).toBeNull();
    expect(parseSlashCommand("please run /help")).toBeNull();
  });

  it("resolves built-ins, skills, broken skills and unknown names", () => {
    expect(resolveSlashCommand("/compact keep the API notes", catalog)).toEqual({ kind: "builtin", name: "compact", args: "keep the API notes" });
    expect(resolveSlashCommand("/model claude-opus-4-1", catalog)).toEqual({ kind: "builtin", name: "model", args: "claude-opus-4-1" });
    expect(resolveSlashCommand("/model", catalog)).toMatchObject({ kind: "error", message: expect.stringContaining("needs a model name") });
    expect(resolveSlashCommand("/release-notes v2", catalog)).toEqual({ kind: "skill", skill, args: "v2" });
    expect(resolveSlashCommand("/broken", catalog)).toMatchObject({ kind: "error", message: expect.stringContaining("invalid YAML") });
    expect(resolveSlashCommand("/nope", catalog)).toMatchObject({ kind: "error", message: expect.stringContaining("Unknown command /nope") });
    expect(resolveSlashCommand("hello", catalog)).toBeNull();
  });

  it("lists every command and the invalid files in /help", () => {
    const help = renderSlashHelp(catalog);
    expect(help).toContain("/compact [instructions]");
    expect(help).toContain("/release-notes <version> — Writes release notes (skill)");
    expect(help).toContain("/broken — invalid YAML front matter: x");
  });
});
