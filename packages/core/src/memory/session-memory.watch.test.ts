import { describe, expect, it } from "vitest";
import { createFakeMemoryFs } from "./fake-memory-fs.ts";
import { createSessionMemory } from "./session-memory.ts";

const WS = "/ws";
const HOME = "/home/user";

function setup(files: Record<string, string>) {
  const fake = createFakeMemoryFs(files, {}, { watch: true });
  const memory = createSessionMemory({
    fs: fake.fs,
    workspaceRoot: WS,
    homeDir: HOME,
    cairnHome: `${HOME}/.cairn`,
    today: () => "2026-12-01",
    trusted: () => true,
  });
  return { ...fake, memory };
}

describe("session memory: watched files", () => {
  it("checks an unchanged tree without a single stat, and an edit reaches the next check", async () => {
    const { memory, write, statCount, openWatches } = setup({
      [`${WS}/CLAUDE.md`]: "first version",
      [`${WS}/.claude/skills/notes/SKILL.md`]: "---\ndescription: Notes\n---\nBody",
    });
    expect((await memory.prefetch()).reminder).toContain("first version");
    expect(openWatches()).toBe(1);
    const before = statCount();
    for (let turn = 0; turn < 10; turn++) expect((await memory.prefetch()).reminder).toContain("first version");
    expect(statCount()).toBe(before);

    write(`${WS}/CLAUDE.md`, "second version");
    expect((await memory.prefetch()).reminder).toContain("second version");
    write(`${WS}/.claude/skills/release/SKILL.md`, "---\ndescription: Release\n---\nBody");
    expect((await memory.prefetch()).reminder).toContain("- release: Release");
    // One watch at a time, over the paths of the latest load.
    expect(openWatches()).toBe(1);
  });

  it("a change the watch did not report is still seen once anything else changes (the check stats everything)", async () => {
    const { memory, write, quietWrite } = setup({ [`${WS}/CLAUDE.md`]: "one", [`${WS}/CLAUDE.local.md`]: "local one" });
    await memory.prefetch();
    quietWrite(`${WS}/CLAUDE.local.md`, "local two");
    expect((await memory.prefetch()).reminder).toContain("local one");
    write(`${WS}/CLAUDE.md`, "two");
    const reminder = (await memory.prefetch()).reminder;
    expect(reminder).toContain("two");
    expect(reminder).toContain("local two");
  });

  it("stops watching when closed and then checks by stats", async () => {
    const { memory, quietWrite, openWatches, watchesMade } = setup({ [`${WS}/CLAUDE.md`]: "one" });
    await memory.prefetch();
    memory.close();
    expect(openWatches()).toBe(0);
    quietWrite(`${WS}/CLAUDE.md`, "two");
    expect((await memory.prefetch()).reminder).toContain("two");
    expect(openWatches()).toBe(0);
    expect(watchesMade()).toBe(1);
  });

  it("without a watch (the file system offers none) every check stats", async () => {
    const fake = createFakeMemoryFs({ [`${WS}/CLAUDE.md`]: "one" });
    const memory = createSessionMemory({
      fs: fake.fs,
      workspaceRoot: WS,
      homeDir: HOME,
      cairnHome: `${HOME}/.cairn`,
      today: () => "2026-12-01",
      trusted: () => true,
    });
    await memory.prefetch();
    const before = fake.statCount();
    await memory.prefetch();
    expect(fake.statCount()).toBeGreaterThan(before);
    fake.quietWrite(`${WS}/CLAUDE.md`, "two");
    expect((await memory.prefetch()).reminder).toContain("two");
  });
});
