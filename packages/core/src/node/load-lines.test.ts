import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTranscriptLines } from "../session/load-lines.ts";
import { loadTranscript } from "./transcript-reader.ts";

const sessionFixtures = join(import.meta.dirname, "..", "session", "__fixtures__");
const claudeFixtures = join(import.meta.dirname, "__fixtures__", "claude-code");
const fixtures = [
  ...readdirSync(sessionFixtures)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => join(sessionFixtures, name)),
  ...readdirSync(claudeFixtures)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => join(claudeFixtures, name)),
];

/** Lines as a database would hold them: the file's lines, without the newline (a torn tail stays a torn last line). */
function linesOf(path: string): string[] {
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

describe("loadTranscriptLines: the tolerant loader over lines held in memory", () => {
  it("has fixtures to compare", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(5);
  });

  it.each(fixtures)("reads %s exactly as the file loader does", async (path) => {
    const fromFile = await loadTranscript(path, { scope: "all" });
    const fromLines = loadTranscriptLines(linesOf(path), { scope: "all" });
    expect(fromLines.messages).toEqual(fromFile.messages);
    expect(fromLines.checkpoints).toEqual(fromFile.checkpoints);
    expect(fromLines.title).toEqual(fromFile.title);
    expect(fromLines.meta).toEqual(fromFile.meta);
    expect({ ...fromLines.report, tornTail: false, malformedLines: 0 }).toEqual({ ...fromFile.report, tornTail: false, malformedLines: 0 });
    expect(fromLines.report.tornTail || fromLines.report.malformedLines > 0).toBe(fromFile.report.tornTail || fromFile.report.malformedLines > 0);
  });

  it("resumes from the last compact boundary and forks at a leaf like the file loader", async () => {
    const path = join(sessionFixtures, "compacted.jsonl");
    const fromFile = await loadTranscript(path, { scope: "since-last-compact" });
    expect(loadTranscriptLines(linesOf(path), { scope: "since-last-compact" }).messages).toEqual(fromFile.messages);
    const leaf = fromFile.messages.at(-2)?.uuid;
    expect(leaf).toBeDefined();
    const leafFromFile = await loadTranscript(path, { scope: "all", leafUuid: leaf });
    expect(loadTranscriptLines(linesOf(path), { scope: "all", leafUuid: leaf }).messages).toEqual(leafFromFile.messages);
  });

  it("counts a bad last line as torn and a bad middle line as malformed", () => {
    const meta = JSON.stringify({ type: "cairn-session", sessionId: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w", cairnSchema: 1, version: "t" });
    expect(loadTranscriptLines([meta, '{"type":"user"', meta]).report).toMatchObject({ malformedLines: 1, tornTail: false });
    expect(loadTranscriptLines([meta, '{"type":"user"']).report).toMatchObject({ malformedLines: 0, tornTail: true });
  });
});
