import type { FileStat, WatchEvent, Workspace } from "@cairn/core";
import { describe, expect, it, vi } from "vitest";
import { WorkspaceFiles } from "./workspace-files.ts";

/** The two calls the watch uses: a watch whose events the test sends, and a stat answered by `statOf`. */
function watchedWorkspace(statOf: (path: string) => Promise<FileStat | null>, options: { statRetryMs?: number } = {}) {
  let emit: (event: WatchEvent) => void = () => undefined;
  const workspace = {
    root: "/w",
    watch: (listener: (event: WatchEvent) => void) => {
      emit = listener;
    },
    stat: statOf,
  };
  return { files: new WorkspaceFiles(workspace as unknown as Workspace, options), emit: (event: WatchEvent) => emit(event) };
}

const fileStat = (path: string, mtimeMs: number): FileStat => ({ path, kind: "file", size: 1, mtimeMs, mode: 0o644 });

describe("WorkspaceFiles.watch", () => {
  it("a stat that fails (the worker restarting) is no delete: the path is looked at again and its change reported", async () => {
    let calls = 0;
    const { files, emit } = watchedWorkspace(async (path) => {
      calls++;
      if (calls === 1) throw new Error("the workspace worker process stopped");
      return fileStat(path, 42);
    });
    const controller = new AbortController();
    const changes = files.watch(controller.signal);
    const next = changes.next();
    emit({ type: "rename", path: "/w/CLAUDE.md" });
    expect((await next).value).toEqual({ type: "create", path: "/w/CLAUDE.md", mtimeMs: 42 });
    expect(calls).toBe(2);
    controller.abort();
    await changes.return(undefined);
  });

  it("gives a path up after 5 more failed stats, and looks at its next change as many times again", async () => {
    let calls = 0;
    let failUntil = 6;
    const { files, emit } = watchedWorkspace(
      async (path) => {
        calls++;
        if (calls <= failUntil) throw new Error("the workspace worker process stopped");
        return fileStat(path, 7);
      },
      { statRetryMs: 1 },
    );
    const controller = new AbortController();
    const changes = files.watch(controller.signal);
    const next = changes.next();
    emit({ type: "change", path: "/w/a.txt" });
    // The first stat and 5 more, then nothing: given up.
    await vi.waitFor(() => expect(calls).toBe(6));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toBe(6);

    // The path changes again while the worker restarts once more: one failed stat, then the change is reported.
    failUntil = 7;
    emit({ type: "change", path: "/w/a.txt" });
    const reported = await Promise.race([next, new Promise((resolve) => setTimeout(() => resolve("not reported"), 2_000))]);
    expect(reported).toEqual({ done: false, value: { type: "change", path: "/w/a.txt", mtimeMs: 7 } });
    expect(calls).toBe(8);
    controller.abort();
    await changes.return(undefined);
  });

  it("a path whose stat finds nothing is a delete", async () => {
    const { files, emit } = watchedWorkspace(async () => null);
    const controller = new AbortController();
    const changes = files.watch(controller.signal);
    const next = changes.next();
    emit({ type: "rename", path: "/w/gone.txt" });
    expect((await next).value).toEqual({ type: "delete", path: "/w/gone.txt" });
    controller.abort();
    await changes.return(undefined);
  });
});
