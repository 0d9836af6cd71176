import { describe, expect, it } from "vitest";
import { emptyTabs, isDirty, tabsReducer, type TabsAction, type TabsState } from "./tabs-state.ts";

const file = (path: string, content: string, mtimeMs = 1) => ({ path, content, mtimeMs, binary: false });
const run = (actions: TabsAction[], start: TabsState = emptyTabs()) => actions.reduce(tabsReducer, start);
const tab = (state: TabsState, path: string) => state.tabs.find((candidate) => candidate.path === path)!;

describe("editor tabs", () => {
  it("opens once, activates, and tracks dirtiness against the saved content", () => {
    const state = run([
      { type: "opened", file: file("/w/a.ts", "one") },
      { type: "opened", file: file("/w/b.ts", "two") },
      { type: "opened", file: file("/w/a.ts", "ignored") },
    ]);
    expect(state.tabs.map((candidate) => candidate.path)).toEqual(["/w/a.ts", "/w/b.ts"]);
    expect(state.active).toBe("/w/a.ts");
    const edited = run([{ type: "edited", path: "/w/a.ts", content: "one!" }], state);
    expect(isDirty(tab(edited, "/w/a.ts"))).toBe(true);
    const saved = run([{ type: "saved", path: "/w/a.ts", content: "one!", mtimeMs: 5 }], edited);
    expect(isDirty(tab(saved, "/w/a.ts"))).toBe(false);
    expect(tab(saved, "/w/a.ts").mtimeMs).toBe(5);
  });

  it("stays dirty when the user typed on during a save", () => {
    const state = run([
      { type: "opened", file: file("/w/a.ts", "v0") },
      { type: "edited", path: "/w/a.ts", content: "v1" },
      { type: "save-started", path: "/w/a.ts" },
      { type: "edited", path: "/w/a.ts", content: "v2" },
      { type: "saved", path: "/w/a.ts", content: "v1", mtimeMs: 9 },
    ]);
    expect(tab(state, "/w/a.ts")).toMatchObject({ content: "v2", savedContent: "v1", saving: false });
  });

  it("reloads a clean buffer when the agent changes the file", () => {
    const state = run([
      { type: "opened", file: file("/w/a.ts", "old") },
      { type: "disk-changed", file: file("/w/a.ts", "new", 7) },
    ]);
    expect(tab(state, "/w/a.ts")).toMatchObject({ content: "new", savedContent: "new", mtimeMs: 7, conflict: null, revision: 1 });
  });

  it("does not clobber unsaved edits: it raises a conflict the user settles", () => {
    const conflicted = run([
      { type: "opened", file: file("/w/a.ts", "old") },
      { type: "edited", path: "/w/a.ts", content: "mine" },
      { type: "disk-changed", file: file("/w/a.ts", "agent's", 7) },
    ]);
    expect(tab(conflicted, "/w/a.ts")).toMatchObject({ content: "mine", conflict: { kind: "changed-on-disk", diskContent: "agent's", diskMtimeMs: 7 } });

    const reloaded = run([{ type: "resolved", path: "/w/a.ts", choice: "reload" }], conflicted);
    expect(tab(reloaded, "/w/a.ts")).toMatchObject({ content: "agent's", savedContent: "agent's", mtimeMs: 7, conflict: null, revision: 1 });

    const kept = run([{ type: "resolved", path: "/w/a.ts", choice: "keep-mine" }], conflicted);
    expect(tab(kept, "/w/a.ts")).toMatchObject({ content: "mine", savedContent: "agent's", mtimeMs: 7, conflict: null, revision: 0 });
    expect(isDirty(tab(kept, "/w/a.ts"))).toBe(true);
  });

  it("ignores change notices for content it already has (its own save)", () => {
    const state = run([
      { type: "opened", file: file("/w/a.ts", "v0") },
      { type: "edited", path: "/w/a.ts", content: "v1" },
      { type: "saved", path: "/w/a.ts", content: "v1", mtimeMs: 3 },
      { type: "edited", path: "/w/a.ts", content: "v2" },
      { type: "disk-changed", file: file("/w/a.ts", "v1", 3) },
    ]);
    expect(tab(state, "/w/a.ts")).toMatchObject({ content: "v2", conflict: null });
  });

  it("bumps the revision only when the buffer is replaced from outside, never for the user's own typing", () => {
    const state = run([
      { type: "opened", file: file("/w/a.ts", "v0") },
      { type: "edited", path: "/w/a.ts", content: "v0!" },
      { type: "saved", path: "/w/a.ts", content: "v0!", mtimeMs: 2 },
    ]);
    expect(tab(state, "/w/a.ts").revision).toBe(0);
    expect(tab(run([{ type: "disk-changed", file: file("/w/a.ts", "agent", 3) }], state), "/w/a.ts").revision).toBe(1);
  });

  it("follows renames of the file or a parent folder, and closes to a neighbour", () => {
    const state = run([
      { type: "opened", file: file("/w/src/a.ts", "a") },
      { type: "opened", file: file("/w/b.ts", "b") },
      { type: "activated", path: "/w/src/a.ts" },
      { type: "renamed", from: "/w/src", to: "/w/lib" },
    ]);
    expect(state.tabs.map((candidate) => candidate.path)).toEqual(["/w/lib/a.ts", "/w/b.ts"]);
    expect(state.active).toBe("/w/lib/a.ts");
    const closed = run([{ type: "closed", path: "/w/lib/a.ts" }], state);
    expect(closed.active).toBe("/w/b.ts");
    expect(run([{ type: "closed", path: "/w/b.ts" }], closed)).toEqual({ tabs: [], active: null });
  });

  it("marks a deleted file and lets the user keep the buffer", () => {
    const state = run([
      { type: "opened", file: file("/w/a.ts", "a") },
      { type: "disk-deleted", path: "/w/a.ts" },
    ]);
    expect(tab(state, "/w/a.ts").conflict).toEqual({ kind: "deleted-on-disk" });
    const kept = run([{ type: "resolved", path: "/w/a.ts", choice: "keep-mine" }], state);
    expect(tab(kept, "/w/a.ts")).toMatchObject({ conflict: null, content: "a" });
    expect(isDirty(tab(kept, "/w/a.ts"))).toBe(true);
  });
});
