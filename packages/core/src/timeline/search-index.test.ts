import { describe, expect, it } from "vitest";
import { buildTimeline } from "./build-timeline.ts";
import { TimelineSearchIndex } from "./search-index.ts";
import { timelineQueryMatcher } from "./search.ts";
import { syntheticTimelineSource } from "./synthetic-source.ts";
import { searchTextOf } from "./timeline-event.ts";

function indexOf(texts: readonly string[], options: { chunkChars?: number } = {}): TimelineSearchIndex {
  const index = new TimelineSearchIndex(options);
  for (const text of texts) index.add(text);
  return index;
}

describe("TimelineSearchIndex", () => {
  const texts = ["tool Bash echo step 42 (x)", "model text", "TOOL read a.ts", "tool tool tool"];

  it("matches literally and case-insensitively, each event once; a blank query matches all", () => {
    const index = indexOf(texts);
    expect(index.search("tool")).toEqual([0, 2, 3]);
    expect(index.search("42 (X")).toEqual([0]);
    expect(index.search(".*")).toEqual([]);
    expect(index.search("  ")).toEqual([0, 1, 2, 3]);
    expect(index.search("  read ")).toEqual([2]);
  });

  it("never matches across two events' texts", () => {
    const index = indexOf(["ends with abc", "def starts"]);
    expect(index.search("abc")).toEqual([0]);
    expect(index.search("abc def")).toEqual([]);
    expect(index.search("abc\u0000def")).toEqual([]);
  });

  it("answers the same over many small chunks, also for events added after a search", () => {
    const index = indexOf(texts, { chunkChars: 16 });
    expect(index.search("tool")).toEqual([0, 2, 3]);
    index.add("another TOOL");
    expect(index.search("tool")).toEqual([0, 2, 3, 4]);
    expect(index.size).toBe(5);
  });

  it("finds what a regular expression per event finds, over a built timeline", () => {
    const timeline = buildTimeline(syntheticTimelineSource({ events: 3_000, sidechains: 2 }));
    const index = new TimelineSearchIndex({ chunkChars: 64 * 1024 });
    for (const event of timeline.events) index.add(searchTextOf(event));
    for (const query of ["echo step 42", "READ", "bash", "no such text anywhere", "error"]) {
      const matcher = timelineQueryMatcher(query)!;
      const expected = timeline.events.filter((event) => matcher(event.searchText)).map((event) => event.index);
      expect(index.search(query)).toEqual(expected);
    }
    expect(index.search("echo step 42").length).toBeGreaterThan(0);
  });
});
