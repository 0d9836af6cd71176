import { describe, expect, it } from "vitest";
import { StoreTimelineCache, storeTimelineSource, type LineStore } from "./store-timeline-cache.ts";

const SESSION = "11111111-1111-4111-8111-111111111111";

const meta = JSON.stringify({ type: "cairn-session", sessionId: SESSION, cwd: "/w", cairnSchema: 1, version: "1", timestamp: "2026-12-01T10:00:00.000Z" });
const prompt = (uuid: string, parentUuid: string | null, text: string, second: number) =>
  JSON.stringify({
    type: "user",
    uuid,
    parentUuid,
    sessionId: SESSION,
    timestamp: `2026-12-01T10:00:0${second}.000Z`,
    message: { role: "user", content: text },
  });

/** Rows in memory, as PostgreSQL keeps them, with every read recorded. */
function rowStore(texts: string[]): LineStore & { reads: number[] } {
  const reads: number[] = [];
  return {
    reads,
    async lineTexts(sessionId, afterLine) {
      reads.push(afterLine);
      if (sessionId !== SESSION) return undefined;
      return { texts: texts.slice(afterLine), total: texts.length };
    },
  };
}

describe("StoreTimelineCache", () => {
  it("builds from the rows, keeps the build while no row is added, and reads only the rows after the ones it holds", async () => {
    const rows = [meta, prompt("u1", null, "first prompt", 1)];
    const store = rowStore(rows);
    const cache = new StoreTimelineCache(store, "/w");
    const first = await cache.get(SESSION);
    expect(first.version).toBe("rows2");
    expect(first.complete).toBe(true);
    expect(JSON.stringify(first.compact)).toContain("first prompt");
    expect(await cache.get(SESSION)).toBe(first);
    expect(cache.isCurrent(SESSION, "rows2")).toBe(true);

    rows.push(prompt("u2", "u1", "second prompt", 2), "not json", JSON.stringify({ type: "attachment" }));
    const second = await cache.first(SESSION, "rows2");
    expect(second.version).toBe("rows5");
    expect(JSON.stringify(second.compact)).toContain("second prompt");
    expect(cache.isCurrent(SESSION, "rows2")).toBe(false);
    expect(store.reads).toEqual([0, 2, 2]);
    await expect(cache.get("22222222-2222-4222-8222-222222222222")).rejects.toMatchObject({ code: "session_not_found" });
  });

  it("gives the export and a share the lines the store holds, pinned to a share's messages, damaged ones counted", async () => {
    const store = rowStore([meta, prompt("u1", null, "kept", 1), prompt("u2", "u1", "not shared", 2), "{broken"]);
    const source = await storeTimelineSource(store, "/w", SESSION, { messageUuids: new Set(["u1"]) });
    expect(JSON.stringify(source.lines)).toContain("kept");
    expect(JSON.stringify(source.lines)).not.toContain("not shared");
    expect(source.damage).toMatchObject({ malformedLines: 1 });
  });
});
