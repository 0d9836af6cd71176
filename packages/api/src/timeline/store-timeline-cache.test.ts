import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sessionTranscriptPath } from "@cairn/core/node";
import { syntheticTimelineSource } from "@cairn/core/timeline";
import type { SidechainTexts } from "../session-store/session-store.ts";
import { subagentDirectory } from "./source.ts";
import { StoreTimelineCache, storeTimelineSource, type LineStore } from "./store-timeline-cache.ts";
import { TimelineCache } from "./timeline-cache.ts";

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
      return { texts: texts.slice(afterLine), total: texts.length, sidechains: [] };
    },
  };
}

/** Rows in memory with subagent sidechains, each read after the count asked for; every read's counts recorded. */
function rowStoreWithSidechains(
  sessionId: string,
  main: string[],
  sidechains: Array<{ agentId: string; description: string; texts: string[] }>,
): LineStore & { reads: Array<{ afterLine: number; afterSidechains: Record<string, number> }> } {
  const reads: Array<{ afterLine: number; afterSidechains: Record<string, number> }> = [];
  return {
    reads,
    async lineTexts(asked, afterLine, afterSidechains = new Map()) {
      reads.push({ afterLine, afterSidechains: Object.fromEntries(afterSidechains) });
      if (asked !== sessionId) return undefined;
      const side = sidechains.map(
        (sidechain): SidechainTexts => ({
          agentId: sidechain.agentId,
          description: sidechain.description,
          texts: sidechain.texts.slice(afterSidechains.get(sidechain.agentId) ?? 0),
          total: sidechain.texts.length,
        }),
      );
      return { texts: main.slice(afterLine), total: main.length, sidechains: side };
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

describe("StoreTimelineCache with subagent sidechains", () => {
  const folders: string[] = [];
  afterEach(async () => {
    for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
  });

  it("draws the same timeline from rows as the file cache draws from the session file and its subagents' files, and reads only new rows", async () => {
    const synthetic = syntheticTimelineSource({ events: 300, sidechains: 3 });
    const toText = (lines: readonly unknown[]) => lines.map((line) => JSON.stringify(line));
    // The sidechains listed out of order: both caches draw them in file name order.
    const sidechains = [...synthetic.sidechains].reverse().map((sidechain) => ({
      agentId: sidechain.agentId,
      description: sidechain.description ?? "",
      texts: toText(sidechain.lines),
    }));

    const cairnHome = await mkdtemp(join(tmpdir(), "cairn-store-timeline-"));
    folders.push(cairnHome);
    const where = { cairnHome, workspaceRoot: "/ws" };
    const path = sessionTranscriptPath({ ...where, cwd: where.workspaceRoot, sessionId: synthetic.sessionId });
    const subagents = subagentDirectory(path, synthetic.sessionId);
    await mkdir(subagents, { recursive: true });
    await writeFile(path, `${toText(synthetic.lines).join("\n")}\n`);
    for (const sidechain of sidechains) {
      await writeFile(join(subagents, `agent-${sidechain.agentId}.jsonl`), `${sidechain.texts.join("\n")}\n`);
      await writeFile(
        join(subagents, `agent-${sidechain.agentId}.meta.json`),
        JSON.stringify({ agentType: "general-purpose", description: sidechain.description }),
      );
    }
    const fromFiles = await new TimelineCache(where).get(synthetic.sessionId);
    const store = rowStoreWithSidechains(synthetic.sessionId, toText(synthetic.lines), sidechains);
    const fromRows = await new StoreTimelineCache(store, "/ws").get(synthetic.sessionId);

    expect(fromRows.timeline.lanes.filter((lane) => lane.id.startsWith("agent")).length).toBe(3);
    expect(fromRows.timeline.lanes.map((lane) => lane.label)).toEqual(expect.arrayContaining(sidechains.map((sidechain) => `Agent: ${sidechain.description}`)));
    expect(fromRows.timeline).toEqual(fromFiles.timeline);
    expect(fromRows.version).not.toBe(`rows${synthetic.lines.length}`);

    // A line added to one sidechain alone is a new version; only that sidechain's new row is read.
    const grown = sidechains[0]!;
    const reads = store.reads.length;
    grown.texts.push(grown.texts.at(-1)!.replace(/"uuid":"[^"]+"/, '"uuid":"extra-sidechain-line"'));
    const cache = new StoreTimelineCache(store, "/ws");
    const before = await cache.get(synthetic.sessionId);
    grown.texts.push(grown.texts.at(-1)!.replace(/"uuid":"[^"]+"/, '"uuid":"another-sidechain-line"'));
    const after = await cache.get(synthetic.sessionId);
    expect(after.version).not.toBe(before.version);
    expect(store.reads.at(-1)?.afterSidechains).toEqual(
      Object.fromEntries(sidechains.map((sidechain) => [sidechain.agentId, sidechain === grown ? sidechain.texts.length - 1 : sidechain.texts.length])),
    );
    expect(store.reads.length).toBe(reads + 2);
    expect(await cache.get(synthetic.sessionId)).toBe(after);
  });
});
