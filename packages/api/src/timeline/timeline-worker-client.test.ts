import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { projectDirName } from "@cairn/core/schema";
import { syntheticTimelineSource, timelineTableOf, type CompactTimeline } from "@cairn/core/timeline";
import { ApiError } from "../router/errors.ts";
import type { SidechainTexts } from "../session-store/session-store.ts";
import type { LineStore } from "./store-timeline-cache.ts";
import { TimelineWorkerClient } from "./timeline-worker-client.ts";

const workspaceRoot = "/work/space";
const sessionId = "s-worker";
const source = syntheticTimelineSource({ events: 300, sidechains: 1 });
const text = (lines: readonly unknown[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join("");

let cairnHome: string;
let client: TimelineWorkerClient;
beforeEach(async () => {
  cairnHome = await mkdtemp(join(tmpdir(), "cairn-timeline-worker-"));
  const directory = join(cairnHome, "projects", projectDirName(workspaceRoot));
  await mkdir(join(directory, sessionId, "subagents"), { recursive: true });
  await writeFile(join(directory, `${sessionId}.jsonl`), text(source.lines));
  await writeFile(join(directory, sessionId, "subagents", `agent-${source.sidechains[0]!.agentId}.jsonl`), text(source.sidechains[0]!.lines));
  client = new TimelineWorkerClient({ cairnHome, workspaceRoot, version: "test" });
});
afterEach(async () => {
  await client.close();
  await rm(cairnHome, { recursive: true, force: true });
});

// A real worker thread from the sources (through tsx): its first start compiles them, which takes a while on a busy machine.
describe("TimelineWorkerClient", { timeout: 120_000 }, () => {
  it("builds, details and searches the timeline in its thread", async () => {
    const answer = await client.view(sessionId, undefined);
    expect(answer.changed).toBe(true);
    if (!answer.changed) return;
    const timeline = timelineTableOf(JSON.parse(answer.timelineJson) as CompactTimeline);
    expect(timeline.events.length).toBeGreaterThan(300);
    expect(await client.view(sessionId, timeline.version)).toEqual({ changed: false, version: timeline.version });
    const tool = timeline.events.toRows().find((event) => event.kind === "tool")!;
    const found = await client.detail(sessionId, tool.id);
    expect(found?.detail.kind).toBe("tool");
    expect(await client.detail(sessionId, "tool:none")).toBeNull();
    const searched = await client.search(sessionId, tool.title.toLowerCase());
    expect(searched.indices).toContain(tool.index);
  });

  it("fails with the same ApiError as in-process for a session that does not exist", async () => {
    const failure = await client.view("no-such-session", undefined).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).code).toBe("session_not_found");
  });

  it("stops waiting when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const waiting = client.view(sessionId, undefined, controller.signal);
    controller.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
  });

  it("starts its thread ahead of the first call when asked: ready once its code is loaded and warmed up", async () => {
    await client.start();
    // Already running: the same thread, ready at once.
    await client.start();
    const answer = await client.view(sessionId, undefined);
    expect(answer.changed).toBe(true);
  });

  it("fails the calls a dead thread owed, and starts a new one for the next call", async () => {
    const owed = client.view(sessionId, undefined);
    await client.close();
    await expect(owed).rejects.toThrow(/timeline worker stopped/);
    const again = await client.view(sessionId, undefined);
    expect(again.changed).toBe(true);
  });
});

/** Rows in memory, as PostgreSQL keeps them, with every read the thread asked for recorded. */
function rowStore(): LineStore & { reads: number[] } {
  const reads: number[] = [];
  const main = source.lines.map((line) => JSON.stringify(line));
  const sidechain = source.sidechains[0]!;
  const sideTexts = sidechain.lines.map((line) => JSON.stringify(line));
  return {
    reads,
    async lineTexts(asked, afterLine, afterSidechains = new Map()) {
      reads.push(afterLine);
      if (asked !== sessionId) return undefined;
      const side: SidechainTexts = {
        agentId: sidechain.agentId,
        description: sidechain.description,
        texts: sideTexts.slice(afterSidechains.get(sidechain.agentId) ?? 0),
        total: sideTexts.length,
      };
      return { texts: main.slice(afterLine), total: main.length, sidechains: [side] };
    },
  };
}

describe("TimelineWorkerClient over a store of rows", { timeout: 120_000 }, () => {
  it("builds in its thread from the rows this thread reads for it, sidechains included; a missing session is the same ApiError", async () => {
    const rows = rowStore();
    const overRows = new TimelineWorkerClient({ cairnHome: "/nonexistent", workspaceRoot, version: "test" }, { rows });
    try {
      const answer = await overRows.view(sessionId, undefined);
      if (!answer.changed) throw new Error("a timeline was expected");
      const timeline = timelineTableOf(JSON.parse(answer.timelineJson) as CompactTimeline);
      expect(timeline.events.length).toBeGreaterThan(300);
      expect(timeline.lanes.map((lane) => lane.label)).toContain(`Agent: ${source.sidechains[0]!.description}`);
      expect(await overRows.view(sessionId, timeline.version)).toEqual({ changed: false, version: timeline.version });
      // The thread asked for everything, then only for the rows after the ones it holds.
      expect(rows.reads).toEqual([0, source.lines.length]);
      const failure = await overRows.view("no-such-session", undefined).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ApiError);
      expect((failure as ApiError).code).toBe("session_not_found");
      expect((await overRows.source(sessionId)).sidechains).toHaveLength(1);
    } finally {
      await overRows.close();
    }
  });
});
