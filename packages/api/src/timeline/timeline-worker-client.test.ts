import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { projectDirName } from "@cairn/core/schema";
import { expandCompactTimeline, syntheticTimelineSource } from "@cairn/core/timeline";
import { ApiError } from "../router/errors.ts";
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
    const timeline = expandCompactTimeline(JSON.parse(answer.timelineJson));
    expect(timeline.events.length).toBeGreaterThan(300);
    expect(await client.view(sessionId, timeline.version)).toEqual({ changed: false, version: timeline.version });
    const tool = timeline.events.find((event) => event.kind === "tool")!;
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

  it("fails the calls a dead thread owed, and starts a new one for the next call", async () => {
    const owed = client.view(sessionId, undefined);
    await client.close();
    await expect(owed).rejects.toThrow(/timeline worker stopped/);
    const again = await client.view(sessionId, undefined);
    expect(again.changed).toBe(true);
  });
});
