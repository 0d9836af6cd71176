import { describe, expect, it } from "vitest";
import { expandSkillBody, parseSkillFile } from "./definition.ts";

const origin = {
  name: "release-notes",
  kind: "skill" as const,
  source: "project" as const,
  path: "/ws/.claude/skills/release-notes/SKILL.md",
  directory: "/ws/.claude/skills/release-notes",
};

describe("parseSkillFile", () => {
  it("reads allowed-tools as a YAML list, a comma list or space-separated rules", async () => {
    const asList = await parseSkillFile("---\nallowed-tools:\n  - Read\n  - Bash(git add, git commit)\n---\nx", origin);
    expect(asList.ok && asList.skill.allowedTools).toEqual(["Read", "Bash(git add, git commit)"]);
    const bySpaces = await parseSkillFile("---\nallowed-tools: Read Grep Bash(git status:*)\n---\nx", origin);
    expect(bySpaces.ok && bySpaces.skill.allowedTools).toEqual(["Read", "Grep", "Bash(git status:*)"]);
  });

  it("reads every Claude Code field", async () => {
    const text =
      "---\nname: release-notes\ndescription: Writes release notes\nallowed-tools: Bash(git log:*), Read\nmodel: claude-haiku-4-5\ndisable-model-invocation: true\nargument-hint: <version>\n---\nNotes for $ARGUMENTS\n";
    expect(await parseSkillFile(text, origin)).toEqual({
      ok: true,
      body: "Notes for $ARGUMENTS\n",
      skill: {
        ...origin,
        description: "Writes release notes",
        allowedTools: ["Bash(git log:*)", "Read"],
        model: "claude-haiku-4-5",
        disableModelInvocation: true,
        argumentHint: "<version>",
      },
    });
  });

  it("falls back to the first line of the body for a missing description", async () => {
    const parsed = await parseSkillFile("# Tidy the imports\n\nDo it.", { ...origin, name: "tidy" });
    expect(parsed.ok && parsed.skill.description).toBe("Tidy the imports");
    expect(parsed.ok && parsed.skill.name).toBe("tidy");
  });

  it("turns wrong types and bad rules into a problem with the reason", async () => {
    const wrongType = await parseSkillFile("---\ndisable-model-invocation: sometimes\n---\nx", origin);
    expect(wrongType).toMatchObject({
      ok: false,
      problem: { name: "release-notes", path: origin.path, reason: expect.stringContaining("disable-model-invocation") },
    });
    const brokenYaml = await parseSkillFile("---\ndescription: [oops\n---\nbody", origin);
    expect(brokenYaml).toMatchObject({ ok: false, problem: { reason: expect.stringMatching(/^invalid YAML front matter/) } });
    const unclosed = await parseSkillFile("---\ndescription: x\nbody without an end", origin);
    expect(unclosed).toMatchObject({ ok: false, problem: { reason: expect.stringContaining("never closed") } });
    const badRule = await parseSkillFile("---\nallowed-tools: Bash(unclosed\n---\nx", origin);
    expect(badRule).toMatchObject({ ok: false, problem: { reason: expect.stringContaining("allowed-tools") } });
  });
});

describe("expandSkillBody", () => {
  it("substitutes $ARGUMENTS and positional $1, $2", () => {
    expect(expandSkillBody("All: $ARGUMENTS; first $1, second $2, none $3.", 'v1.2 "the big one"')).toBe(
      'All: v1.2 "the big one"; first v1.2, second the big one, none .',
    );
  });

  it("appends the arguments when the body does not use them", () => {
    expect(expandSkillBody("Do the thing.\n", "now please")).toBe("Do the thing.\n\nARGUMENTS: now please");
    expect(expandSkillBody("Do the thing.", "")).toBe("Do the thing.");
  });
});
