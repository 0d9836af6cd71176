import { buildTimeline, syntheticTimelineSource, timelineTableOfRows } from "@cairn/core/timeline";
import { describe, expect, it } from "vitest";
import { filterEvents, noFilters, positionsOf } from "./filter";

describe("filterEvents", () => {
  const timeline = buildTimeline(syntheticTimelineSource({ events: 400 }));
  const { events } = timelineTableOfRows(timeline);

  it("lets everything through with no filters, in time order", () => {
    const all = filterEvents(events, noFilters);
    expect(all).toEqual(timeline.events.map((event) => event.index));
  });

  it("filters by kind, tool and status, and searches text case-insensitively as typed", () => {
    const bash = filterEvents(events, { ...noFilters, kinds: new Set(["tool"]), tool: "Bash" });
    expect(bash.length).toBeGreaterThan(0);
    expect(bash.every((index) => timeline.events[index]!.toolName === "Bash" && timeline.events[index]!.kind === "tool")).toBe(true);
    const errors = filterEvents(events, { ...noFilters, status: "problems" });
    expect(errors.every((index) => timeline.events[index]!.status !== "ok")).toBe(true);
    const found = filterEvents(events, { ...noFilters, query: "ECHO STEP 13" });
    expect(found.map((index) => timeline.events[index]!.summary)).toContain("echo step 13");
    expect(filterEvents(events, { ...noFilters, query: "file-(" })).toEqual([]);
  });

  it("takes the server's search hits instead of searching locally", () => {
    const hits = new Uint8Array(timeline.events.length);
    hits[3] = 1;
    hits[7] = 1;
    expect(filterEvents(events, { ...noFilters, query: "anything" }, hits)).toEqual([3, 7]);
    expect(filterEvents(events, { ...noFilters, query: "anything", kinds: new Set([timeline.events[3]!.kind]) }, hits)).toContain(3);
  });

  it("maps event indices to list rows", () => {
    const positions = positionsOf([4, 9], 12);
    expect([positions[4], positions[9], positions[5]]).toEqual([0, 1, -1]);
  });
});
