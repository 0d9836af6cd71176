import { describe, expect, it } from "vitest";
import type { SkillDefinition } from "../skills/definition.ts";
import { createFakeMemoryFs } from "./fake-memory-fs.ts";
import { MAX_MEMORY_FILE_CHARS } from "./port.ts";
import { createSessionMemory } from "./session-memory.ts";

const WS = "/ws";
const HOME = "/home/user";
const CAIRN = "/home/user/.cairn";

function setup(files: Record<string, string>, links: Record<string, string> = {}) {
  const fake = createFakeMemoryFs(files, links);
  const memory = createSessionMemory({ fs: fake.fs, workspaceRoot: WS, homeDir: HOME, cairnHome: CAIRN, today: () => "2026-12-01", trusted: () => true });
  return { ...fake, memory };
}

describe("session memory: the hierarchy and imports", () => {
  it("loads user, project and local memory in order, each file named, with the date", async () => {
    const { memory } = setup({
      [`${CAIRN}/CLAUDE.md`]: "cairn user rules",
      [`${HOME}/.claude/CLAUDE.md`]: "claude user rules",
      [`${WS}/CLAUDE.md`]: "project rules",
      [`${WS}/.claude/CLAUDE.md`]: "dot-claude rules",
      [`${WS}/CLAUDE.local.md`]: "local rules",
    });
    const { reminder, notices } = await memory.prefetch();
    expect(notices).toEqual([]);
    const order = ["cairn user rules", "claude user rules", "project rules", "dot-claude rules", "local rules"].map((text) => reminder!.indexOf(text));
    expect(order.every((position, index) => position > 0 && (index === 0 || position > order[index - 1]!))).toBe(true);
    expect(reminder).toContain(`Contents of ${WS}/CLAUDE.local.md (user's private project instructions, not checked in)`);
    expect(reminder).toContain(`Contents of ${HOME}/.claude/CLAUDE.md (user's private global instructions for all projects)`);
    expect(reminder).toContain("Today's date is 2026-12-01.");
    expect(reminder!.startsWith("<system-reminder>")).toBe(true);
  });

  it("follows imports relative to the importing file and ~/, skipping cycles and missing files with notices", async () => {
    const { memory } = setup({
      [`${WS}/CLAUDE.md`]: "root @docs/conventions.md @docs/missing.md",
      [`${WS}/docs/conventions.md`]: "conventions @./style/tabs.md @~/.claude/shared.md",
      [`${WS}/docs/style/tabs.md`]: "use tabs @../conventions.md",
      [`${HOME}/.claude/shared.md`]: "shared snippet",
    });
    const { reminder, notices } = await memory.prefetch();
    expect(reminder).toContain(`Contents of ${WS}/docs/conventions.md (project instructions, checked into the codebase, imported by ${WS}/CLAUDE.md)`);
    expect(reminder).toContain("use tabs");
    expect(reminder).toContain("shared snippet");
    expect(notices.map((notice) => [notice.code, notice.path])).toEqual([
      ["memory_import_cycle", `${WS}/docs/conventions.md`],
      ["memory_import_missing", `${WS}/docs/missing.md`],
    ]);
    // Notices are reported once per session.
    expect((await memory.prefetch()).notices).toEqual([]);
  });

  it("stops at five levels of imports", async () => {
    const files: Record<string, string> = { [`${WS}/CLAUDE.md`]: "level 0 @l1.md" };
    for (let level = 1; level <= 7; level++) files[`${WS}/l${level}.md`] = `level ${level} @l${level + 1}.md`;
    const { memory } = setup(files);
    const { reminder, notices } = await memory.prefetch();
    expect(reminder).toContain("level 5");
    expect(reminder).not.toContain("level 6");
    expect(notices).toEqual([expect.objectContaining({ code: "memory_import_depth", path: `${WS}/l5.md` })]);
  });

  it("refuses imports outside the workspace and the user's memory directories, symlinks included", async () => {
    const { memory } = setup(
      {
        [`${WS}/CLAUDE.md`]: "root @/etc/passwd-notes.md @~/private/diary.md @docs/link.md",
        "/etc/passwd-notes.md": "secret one",
        [`${HOME}/private/diary.md`]: "secret two",
        "/elsewhere/target.md": "secret three",
      },
      { [`${WS}/docs/link.md`]: "/elsewhere/target.md" },
    );
    const { reminder, notices } = await memory.prefetch();
    expect(reminder).not.toMatch(/secret/);
    expect(notices.map((notice) => notice.code)).toEqual(["memory_import_refused", "memory_import_refused", "memory_import_refused"]);
  });

  it("cuts a file over 40,000 characters and says so", async () => {
    const { memory } = setup({ [`${WS}/CLAUDE.md`]: `${"x".repeat(MAX_MEMORY_FILE_CHARS)}TAIL-NOT-SENT` });
    const { reminder, notices } = await memory.prefetch();
    expect(reminder).not.toContain("TAIL-NOT-SENT");
    expect(notices).toEqual([expect.objectContaining({ code: "memory_truncated", path: `${WS}/CLAUDE.md` })]);
    const overview = await memory.overview();
    expect(overview.files).toEqual([{ path: `${WS}/CLAUDE.md`, kind: "project", chars: MAX_MEMORY_FILE_CHARS + 13, truncated: true }]);
  });

  it("returns no reminder when there is no memory and no skill", async () => {
    const { memory } = setup({ [`${WS}/src/a.ts`]: "" });
    expect(await memory.prefetch()).toEqual({ reminder: null, notices: [] });
  });
});

describe("session memory: re-checks by mtime", () => {
  it("reloads when a memory file changes, is created or is removed, and only stats when nothing changed", async () => {
    const { memory, write, remove, statCount } = setup({ [`${WS}/CLAUDE.md`]: "first version" });
    expect((await memory.prefetch()).reminder).toContain("first version");
    const before = statCount();
    expect((await memory.prefetch()).reminder).toContain("first version");
    expect(statCount() - before).toBeLessThan(20);
    write(`${WS}/CLAUDE.md`, "second version");
    expect((await memory.prefetch()).reminder).toContain("second version");
    write(`${WS}/CLAUDE.local.md`, "now local too");
    expect((await memory.prefetch()).reminder).toContain("now local too");
    remove(`${WS}/CLAUDE.md`);
    const reminder = (await memory.prefetch()).reminder;
    expect(reminder).not.toContain("second version");
    expect(reminder).toContain("now local too");
  });

  it("notices an edited import", async () => {
    const { memory, write } = setup({ [`${WS}/CLAUDE.md`]: "@docs/a.md", [`${WS}/docs/a.md`]: "old import" });
    await memory.prefetch();
    write(`${WS}/docs/a.md`, "new import");
    expect((await memory.prefetch()).reminder).toContain("new import");
  });
});

describe("session memory: nested CLAUDE.md", () => {
  it("loads subdirectory memory above a file once per session, outermost first", async () => {
    const { memory } = setup({
      [`${WS}/CLAUDE.md`]: "root",
      [`${WS}/src/CLAUDE.md`]: "src rules",
      [`${WS}/src/lib/CLAUDE.local.md`]: "lib local rules @notes.md",
      [`${WS}/src/lib/notes.md`]: "lib notes",
      [`${WS}/src/lib/a.ts`]: "",
    });
    await memory.prefetch();
    const first = await memory.nestedFor(`${WS}/src/lib/a.ts`);
    expect(first).toContain(`Contents of ${WS}/src/CLAUDE.md`);
    expect(first!.indexOf("src rules")).toBeLessThan(first!.indexOf("lib local rules"));
    expect(first).toContain("lib notes");
    expect(first).not.toContain("root");
    expect(await memory.nestedFor(`${WS}/src/lib/b.ts`)).toBeNull();
    expect(await memory.nestedFor(`${WS}/src/other.ts`)).toBeNull();
    expect(await memory.nestedFor(`${WS}/top.ts`)).toBeNull();
    expect(await memory.nestedFor("/outside/file.ts")).toBeNull();
    expect((await memory.overview()).files.map((file) => [file.path, file.kind])).toEqual([
      [`${WS}/CLAUDE.md`, "project"],
      [`${WS}/src/CLAUDE.md`, "nested"],
      [`${WS}/src/lib/CLAUDE.local.md`, "nested"],
      [`${WS}/src/lib/notes.md`, "nested"],
    ]);
  });
});

describe("session memory: skills", () => {
  const skill = (name: string, description: string, extra = "") =>
    `---\nname: ${name}\ndescription: ${description}\n${extra}---\nBody of ${name}: $ARGUMENTS\n`;

  it("lists project and user skills and commands, keeps the first of a name, and reports broken ones", async () => {
    const { memory } = setup({
      [`${WS}/.claude/skills/release-notes/SKILL.md`]: skill("release-notes", "Writes release notes", "allowed-tools: Bash(git log:*), Read\n"),
      [`${WS}/.claude/skills/broken/SKILL.md`]: "---\nname: broken\ndescription: [unclosed\n---\nbody",
      [`${WS}/.claude/skills/private/SKILL.md`]: skill("private", "Only by hand", "disable-model-invocation: true\n"),
      [`${HOME}/.claude/skills/release-notes/SKILL.md`]: skill("release-notes", "shadowed"),
      [`${CAIRN}/skills/tidy/SKILL.md`]: skill("tidy", "Tidies up"),
      [`${WS}/.claude/commands/deploy.md`]: "---\ndescription: Deploys\nargument-hint: <env>\n---\nDeploy to $1 now",
    });
    const catalog = await memory.skills();
    expect(catalog.skills.map((entry) => [entry.name, entry.kind, entry.source, entry.description])).toEqual([
      ["private", "skill", "project", "Only by hand"],
      ["release-notes", "skill", "project", "Writes release notes"],
      ["tidy", "skill", "user", "Tidies up"],
      ["deploy", "command", "project", "Deploys"],
    ]);
    expect(catalog.skills[1]!.allowedTools).toEqual(["Bash(git log:*)", "Read"]);
    expect(catalog.problems).toEqual([expect.objectContaining({ name: "broken", path: `${WS}/.claude/skills/broken/SKILL.md` })]);
    expect(catalog.problems[0]!.reason).toMatch(/invalid YAML front matter/);
    const { reminder } = await memory.prefetch();
    expect(reminder).toContain("The following skills are available for use with the Skill tool:");
    expect(reminder).toContain("- release-notes: Writes release notes");
    expect(reminder).toContain("- deploy: Deploys (arguments: <env>)");
    expect(reminder).not.toContain("private");
  });

  it("notices a skill added after the first request", async () => {
    const { memory, write } = setup({ [`${WS}/.claude/skills/one/SKILL.md`]: skill("one", "First") });
    expect((await memory.skills()).skills.map((entry) => entry.name)).toEqual(["one"]);
    write(`${WS}/.claude/skills/two/SKILL.md`, skill("two", "Second"));
    expect((await memory.skills()).skills.map((entry) => entry.name)).toEqual(["one", "two"]);
  });

  it("grants a project skill's tools only in a trusted workspace", async () => {
    const fake = createFakeMemoryFs({});
    let trusted = false;
    const memory = createSessionMemory({ fs: fake.fs, workspaceRoot: WS, homeDir: HOME, cairnHome: CAIRN, today: () => "2026-12-01", trusted: () => trusted });
    const definition = (source: "project" | "user"): SkillDefinition => ({
      name: "s",
      kind: "skill",
      source,
      description: "d",
      path: `${WS}/.claude/skills/s/SKILL.md`,
      directory: `${WS}/.claude/skills/s`,
      allowedTools: ["Read"],
      disableModelInvocation: false,
    });
    expect(memory.grants.mayGrant(definition("project"))).toBe(false);
    expect(memory.grants.mayGrant(definition("user"))).toBe(true);
    trusted = true;
    expect(memory.grants.mayGrant(definition("project"))).toBe(true);
    memory.grants.record(["Read"]);
    memory.grants.record(["Bash(ls)"]);
    expect(memory.releaseGrants()).toEqual(["Read", "Bash(ls)"]);
    expect(memory.releaseGrants()).toEqual([]);
  });
});
