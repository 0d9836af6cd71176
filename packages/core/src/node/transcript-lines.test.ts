import { describe, expect, it } from "vitest";
import { readTranscriptLines } from "./transcript-lines.ts";

const fixtures = new URL("../session/__fixtures__/", import.meta.url).pathname;

describe("readTranscriptLines", () => {
  it("keeps every line in file order, tombstones included", async () => {
    const { lines, report } = await readTranscriptLines(`${fixtures}tombstones.jsonl`);
    expect(lines.map((line) => line.type)).toContain("tombstone");
    expect(lines[0]!.type).toBe("cairn-session");
    expect(lines.filter((line) => line.type === "tombstone")).toHaveLength(2);
    expect(report).toMatchObject({ malformedLines: 0, tornTail: false });
  });

  it("skips and counts damaged lines, a torn tail apart", async () => {
    const { lines, report } = await readTranscriptLines(`${fixtures}damaged.jsonl`, { sessionId: "damaged" });
    expect(report.tornTail).toBe(true);
    // The cut-off line, the JSON array and the user line without a message.
    expect(report.malformedLines).toBe(3);
    expect(lines.every((line) => line.sessionId !== undefined)).toBe(true);
    expect(lines.map((line) => (line.type === "user" || line.type === "assistant" ? line.uuid.slice(-2) : line.type))).toEqual(["01", "02", "03", "04"]);
  });

  it("reads a part: the lines that start from `from` and before `upTo`, and where to read on", async () => {
    const whole = await readTranscriptLines(`${fixtures}tombstones.jsonl`);
    const cutAt = Math.floor(whole.size / 2);
    const head = await readTranscriptLines(`${fixtures}tombstones.jsonl`, { upTo: cutAt });
    expect(head.endOffset).toBeGreaterThanOrEqual(cutAt);
    expect(head.report.tornTail).toBe(false);
    const tail = await readTranscriptLines(`${fixtures}tombstones.jsonl`, { from: head.endOffset });
    expect([...head.lines, ...tail.lines]).toEqual(whole.lines);
    expect(head.lines.length).toBeGreaterThan(0);
    expect(tail.lines.length).toBeGreaterThan(0);
  });
});
