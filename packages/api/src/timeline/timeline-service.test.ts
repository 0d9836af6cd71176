import { appendFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { projectDirName } from "@cairn/core/schema";
import {
  appendPagesToTable,
  syntheticTimelineSource,
  timelineTableOf,
  type CompactTimeline,
  type CompactTimelinePage,
  type TimelineRows,
  type TimelineTable,
} from "@cairn/core/timeline";
import type { ApiError } from "../router/errors.ts";
import type { FirstDetail } from "./timeline-port.ts";
import { TimelineService } from "./timeline-service.ts";

const workspaceRoot = "/work/space";
const sessionId = "s-live";
const source = syntheticTimelineSource({ events: 400, sidechains: 1 });
const text = (lines: readonly unknown[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join("");

let cairnHome: string;
let transcript: string;
let service: TimelineService;
beforeEach(async () => {
  cairnHome = await mkdtemp(join(tmpdir(), "cairn-timeline-service-"));
  const directory = join(cairnHome, "projects", projectDirName(workspaceRoot));
  transcript = join(directory, `${sessionId}.jsonl`);
  await mkdir(join(directory, sessionId, "subagents"), { recursive: true });
  await writeFile(join(directory, sessionId, "subagents", `agent-${source.sidechains[0]!.agentId}.jsonl`), text(source.sidechains[0]!.lines));
  service = new TimelineService({ cairnHome, workspaceRoot, version: "test" });
});
afterEach(async () => {
  await rm(cairnHome, { recursive: true, force: true });
});

/** A view's timeline as the browser holds it: its events as columns. */
const tableOf = (timelineJson: string) => timelineTableOf(JSON.parse(timelineJson) as CompactTimeline);

/** A table with its events made into rows and without its version, to compare two ways of filling it. */
function rowsOfTable(table: TimelineTable): TimelineRows {
  const { version: _version, ...rest } = table as TimelineTable & { version?: string };
  return { ...rest, events: rest.events.toRows() };
}

const viewOf = async (known?: string) => {
  const answer = await service.view(sessionId, known);
  if (!answer.changed) throw new Error("expected a changed view");
  return tableOf(answer.timelineJson);
};

describe("TimelineService", () => {
  it("builds the timeline on the server, answers 'unchanged' for the current version, and follows a growing transcript", async () => {
    const half = Math.floor(source.lines.length / 2);
    await writeFile(transcript, text(source.lines.slice(0, half)));
    const first = await viewOf();
    expect(first.events.length).toBeGreaterThan(0);
    expect(await service.view(sessionId, first.version)).toEqual({ changed: false, version: first.version });

    // A live session appends the rest (the last line at first without its newline, as if mid-write).
    const rest = text(source.lines.slice(half));
    await appendFile(transcript, rest.slice(0, -1));
    const grown = await viewOf(first.version);
    await appendFile(transcript, "\n");
    const complete = await viewOf(grown.version);
    expect(complete.events.length).toBeGreaterThan(first.events.length);
    // The same as a timeline read from scratch.
    const fresh = await new TimelineService({ cairnHome, workspaceRoot, version: "test" }).view(sessionId, undefined);
    if (!fresh.changed) throw new Error("expected a timeline");
    const freshTable = tableOf(fresh.timelineJson);
    expect(complete.events.toRows().map((event) => event.id)).toEqual(freshTable.events.toRows().map((event) => event.id));
    expect(complete.summary).toEqual(freshTable.summary);
  });

  it("rereads a transcript that was rewritten shorter", async () => {
    await writeFile(transcript, text(source.lines));
    const whole = await viewOf();
    await writeFile(transcript, text(source.lines.slice(0, 10)));
    const cut = await viewOf(whole.version);
    expect(cut.events.length).toBeLessThan(whole.events.length);
  });

  it("gives one event's details by id and searches on the server", async () => {
    await writeFile(transcript, text(source.lines));
    const view = await viewOf();
    const tool = view.events.toRows().find((event) => event.kind === "tool")!;
    const detail = await service.detail(sessionId, tool.id);
    expect(detail).toMatchObject({ version: view.version, detail: { kind: "tool", name: tool.toolName } });
    expect(await service.detail(sessionId, "tool:nope")).toBeNull();
    const found = await service.search(sessionId, tool.title);
    expect(found.version).toBe(view.version);
    expect(found.indices).toContain(tool.index);
    expect((await service.search(sessionId, "no event says this")).indices).toEqual([]);
  });

  it("shows a large transcript first in part, then whole; details come from the part, search from the whole", async () => {
    await writeFile(transcript, text(source.lines));
    const partly = new TimelineService({ cairnHome, workspaceRoot, version: "test" }, { partialBytes: 8 * 1024 });
    const first = await partly.view(sessionId, undefined);
    if (!first.changed) throw new Error("expected a timeline");
    expect(first.complete).toBe(false);
    const part = tableOf(first.timelineJson);
    const firstTool = part.events.toRows().find((event) => event.kind === "tool" && event.agentId === null)!;
    expect(await partly.detail(sessionId, firstTool.id)).toMatchObject({ version: part.version, detail: { kind: "tool", name: firstTool.toolName } });

    // Asked again with the part's version: the whole, the same as a timeline read in one go.
    const second = await partly.view(sessionId, part.version);
    if (!second.changed) throw new Error("expected the whole timeline");
    expect(second.complete).toBe(true);
    const whole = tableOf(second.timelineJson);
    expect(part.events.length).toBeGreaterThan(0);
    expect(whole.events.length).toBeGreaterThan(part.events.length);
    const inOneGo = await viewOf();
    expect(whole.events.toRows().map((event) => [event.id, event.status, event.start, event.end])).toEqual(
      inOneGo.events.toRows().map((event) => [event.id, event.status, event.start, event.end]),
    );
    expect(whole.summary).toEqual(inOneGo.summary);
    expect((await partly.search(sessionId, firstTool.title)).version).toBe(whole.version);
    expect(await partly.view(sessionId, whole.version)).toEqual({ changed: false, version: whole.version });
  });

  it("shows a transcript of a few hundred KB first in part by default: the first screen's events, not half a megabyte", async () => {
    const big = syntheticTimelineSource({ events: 1_200, sidechains: 0 });
    const bigText = text(big.lines);
    // More than twice the first part's 128 KiB (so read in two steps), less than twice the 512 KiB it was.
    expect(bigText.length).toBeGreaterThan(300 * 1024);
    expect(bigText.length).toBeLessThan(1024 * 1024);
    await writeFile(transcript, bigText);
    const first = await service.view(sessionId, undefined);
    if (!first.changed) throw new Error("expected a timeline");
    expect(first.complete).toBe(false);
    expect(first.rest).toBeUndefined();
    const part = tableOf(first.timelineJson);
    expect(part.events.length).toBeGreaterThan(50);
    const second = await service.view(sessionId, part.version);
    if (!second.changed) throw new Error("expected the whole timeline");
    expect(tableOf(second.timelineJson).events.length).toBeGreaterThan(part.events.length);
  });

  it("sends a large timeline as its first events, then the rest in pages that add up to the whole", async () => {
    await writeFile(transcript, text(source.lines));
    const whole = await viewOf();
    const paged = new TimelineService({ cairnHome, workspaceRoot, version: "test" }, { headEvents: 50, pageEvents: 120 });
    const first = await paged.view(sessionId, undefined);
    if (!first.changed || !first.rest) throw new Error("expected a first part and the rest in pages");
    expect(first.complete).toBe(false);
    expect(first.rest).toEqual({ version: whole.version, from: 50, total: whole.events.length });
    let table: TimelineTable = tableOf(first.timelineJson);
    expect(table.events.toRows().map((event) => event.id)).toEqual(
      whole.events
        .toRows()
        .slice(0, 50)
        .map((event) => event.id),
    );
    let pages = 0;
    for (let from = first.rest.from; from < first.rest.total; pages++) {
      const answer = await paged.page(sessionId, first.rest.version, from);
      if (answer.stale) throw new Error("expected a page");
      const page = JSON.parse(answer.pageJson) as CompactTimelinePage;
      expect(page.to - page.from).toBeLessThanOrEqual(120);
      table = appendPagesToTable(table, [page]);
      from = page.to;
    }
    expect(pages).toBe(Math.ceil((whole.events.length - 50) / 120));
    expect(rowsOfTable(table)).toEqual(rowsOfTable(whole));
    // The version the pages came from is current: following it answers "unchanged".
    expect(await paged.view(sessionId, first.rest.version)).toEqual({ changed: false, version: whole.version });
    // A page of a version that is gone says so, and the viewer starts over.
    await appendFile(transcript, text(source.lines.slice(0, 1)));
    expect(await paged.page(sessionId, first.rest.version, 50)).toEqual({ stale: true });
  });

  it("sends the details of the first finished events with a first look, the same as timeline.detail answers", async () => {
    await writeFile(transcript, text(source.lines));
    const first = await service.view(sessionId, undefined);
    if (!first.changed || first.detailsJson === undefined) throw new Error("expected a first look with details");
    const details = JSON.parse(first.detailsJson) as Record<string, FirstDetail>;
    const rows = tableOf(first.timelineJson);
    const expected = rows.events
      .toRows()
      .slice(0, 30)
      .filter((event) => event.status !== "unfinished" && event.status !== "partial");
    expect(Object.keys(details)).toEqual(expected.map((event) => event.id));
    for (const event of expected) {
      expect(details[event.id]!.status).toBe(event.status);
      expect(details[event.id]!.detail).toEqual((await service.detail(sessionId, event.id))!.detail);
    }
    // Following the session (with the version it has) sends no details again.
    await appendFile(transcript, text(source.lines.slice(0, 1)));
    const grown = await service.view(sessionId, rows.version);
    expect(grown.changed).toBe(true);
    expect("detailsJson" in grown).toBe(false);
  });

  it("leaves the details of unfinished events out of a first look, and stops before they exceed 64 KiB", async () => {
    // A session whose first turn's tool call never finished (the transcript ends before its result).
    const unfinishedAt = source.lines.findIndex((line) => JSON.stringify(line).includes('"tool_use"'));
    await writeFile(transcript, text(source.lines.slice(0, unfinishedAt + 1)));
    const first = await service.view(sessionId, undefined);
    if (!first.changed) throw new Error("expected a timeline");
    const rows = tableOf(first.timelineJson);
    const unfinished = rows.events.toRows().filter((event) => event.status === "unfinished");
    expect(unfinished.length).toBeGreaterThan(0);
    const details = JSON.parse(first.detailsJson ?? "{}") as Record<string, FirstDetail>;
    for (const event of unfinished) expect(details[event.id]).toBeUndefined();
    // Long tool inputs: the details stop before 64 KiB of JSON.
    const big = source.lines.map((line) => JSON.parse(JSON.stringify(line).replaceAll("file-", `${"F".repeat(6_000)}file-`)) as unknown);
    await writeFile(transcript, text(big));
    const large = await new TimelineService({ cairnHome, workspaceRoot, version: "test" }).view(sessionId, undefined);
    if (!large.changed || large.detailsJson === undefined) throw new Error("expected details");
    expect(large.detailsJson.length).toBeLessThanOrEqual(64 * 1024);
    expect(Object.keys(JSON.parse(large.detailsJson) as object).length).toBeLessThan(30);
  });

  it("answers a page again with the same text, and searches a grown session in its newest version", async () => {
    await writeFile(transcript, text(source.lines));
    const indexing = new TimelineService({ cairnHome, workspaceRoot, version: "test" }, { headEvents: 50, pageEvents: 120, indexDelayMs: 0 });
    const first = await indexing.view(sessionId, undefined);
    if (!first.changed || !first.rest) throw new Error("expected a first part and the rest in pages");
    const page = await indexing.page(sessionId, first.rest.version, 50);
    expect(await indexing.page(sessionId, first.rest.version, 50)).toEqual(page);
    // The background index of the first version starts; the session grows meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const marker = "a line no other line says";
    const prompt = source.lines.find((line) => (line as { type?: string }).type === "user")!;
    await appendFile(transcript, text([{ ...(prompt as object), uuid: "grown-1", message: { role: "user", content: marker } }]));
    const found = await indexing.search(sessionId, marker.toUpperCase());
    expect(found.version).not.toBe(first.rest.version);
    expect(found.indices).toHaveLength(1);
    const grown = await indexing.view(sessionId, undefined);
    if (!grown.changed) throw new Error("expected a timeline");
    expect(found.version).toBe(grown.rest?.version ?? tableOf(grown.timelineJson).version);
  });

  it("says a session that is not there is not found", async () => {
    const missing = await service.view("nope", undefined).catch((error: unknown) => error);
    expect((missing as ApiError).code).toBe("session_not_found");
  });
});
