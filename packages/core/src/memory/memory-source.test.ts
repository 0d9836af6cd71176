import { describe, expect, it } from "vitest";
import { createFakeMemoryFs } from "./fake-memory-fs.ts";
import { createMemorySource } from "./memory-source.ts";
import type { MemoryFs } from "./port.ts";
import { createSessionMemory } from "./session-memory.ts";

const WS = "/ws";
const HOME = "/home/user";

function setup(files: Record<string, string>) {
  const fake = createFakeMemoryFs(files, {}, { watch: true });
  let reads = 0;
  const fs: MemoryFs = {
    ...fake.fs,
    readText: (path) => {
      reads++;
      return fake.fs.readText(path);
    },
  };
  const source = createMemorySource({ fs, workspaceRoot: WS, homeDir: HOME, cairnHome: `${HOME}/.cairn` });
  const session = () => createSessionMemory({ source, today: () => "2026-12-01", trusted: () => true });
  return { ...fake, source, session, reads: () => reads };
}

describe("memory source shared by sessions", () => {
  it("a hundred sessions starting at once load the files once and share one watch", async () => {
    const { session, reads, openWatches, watchesMade } = setup({ [`${WS}/CLAUDE.md`]: "project rules", [`${HOME}/.claude/CLAUDE.md`]: "user rules" });
    const sessions = Array.from({ length: 100 }, session);
    const prefetched = await Promise.all(sessions.map((memory) => memory.prefetch()));
    for (const { reminder } of prefetched) {
      expect(reminder).toContain("project rules");
      expect(reminder).toContain("user rules");
    }
    expect(reads()).toBe(2);
    // The first check loads; the callers that came while it ran share one more check, which sets up the watch.
    expect(watchesMade()).toBe(1);
    expect(openWatches()).toBe(1);
  });

  it("an edit reaches every session's next request, and a session closing leaves the others watched", async () => {
    const { session, write, openWatches, source } = setup({ [`${WS}/CLAUDE.md`]: "first" });
    const [one, two] = [session(), session()];
    await Promise.all([one.prefetch(), two.prefetch()]);
    write(`${WS}/CLAUDE.md`, "second");
    expect((await one.prefetch()).reminder).toContain("second");
    expect((await two.prefetch()).reminder).toContain("second");
    one.close();
    expect(openWatches()).toBe(1);
    source.close();
    expect(openWatches()).toBe(0);
  });

  it("a caller that comes while a check runs gets a check that began after it asked", async () => {
    const { session, write } = setup({ [`${WS}/CLAUDE.md`]: "before" });
    const [one, two] = [session(), session()];
    await one.prefetch();
    const running = one.prefetch();
    // Written while the first check is under way: the second caller must see it.
    write(`${WS}/CLAUDE.md`, "after");
    const joined = two.prefetch();
    await running;
    expect((await joined).reminder).toContain("after");
  });

  it("notices are reported once per session, not once per source", async () => {
    const { session } = setup({ [`${WS}/CLAUDE.md`]: "@missing.md" });
    const [one, two] = [session(), session()];
    expect((await one.prefetch()).notices.map((notice) => notice.code)).toEqual(["memory_import_missing"]);
    expect((await two.prefetch()).notices.map((notice) => notice.code)).toEqual(["memory_import_missing"]);
    expect((await one.prefetch()).notices).toEqual([]);
  });
});
