import { describe, expect, it } from "vitest";
import { TextColumn } from "./text-column.ts";

describe("TextColumn", () => {
  it("gives back each value, across chunks and while values are still being written", () => {
    const column = new TextColumn();
    const values = Array.from({ length: 70_000 }, (_, index) => (index % 7 === 0 ? "" : `value ${index} …`));
    for (const [index, value] of values.entries()) {
      column.push(value);
      // A read in the middle seals what was written so far; writing goes on in a new chunk.
      if (index === 1_000) expect(column.get(1_000)).toBe(values[1_000]);
    }
    expect(column.length).toBe(values.length);
    for (const index of [0, 1, 999, 1_000, 1_001, 65_535, 65_536, 65_537, 69_999]) expect(column.get(index)).toBe(values[index]);
    expect(column.get(70_000)).toBe("");
  });

  it("finds a value by its whole text, not by a part of a longer one", () => {
    const column = new TextColumn();
    for (const value of ["tool:a1", "tool:a", "model:b", "tool:a"]) column.push(value);
    expect(column.indexOf("tool:a", 4)).toBe(1);
    expect(column.indexOf("model:b", 4)).toBe(2);
    expect(column.indexOf("model:b", 2)).toBe(-1);
    expect(column.indexOf("a1", 4)).toBe(-1);
    expect(column.indexOf("tool:a1", 4)).toBe(0);
  });

  it("copies its first values, cutting a chunk", () => {
    const column = new TextColumn();
    for (let index = 0; index < 100; index++) column.push(`v${index}`);
    const copy = new TextColumn();
    copy.copyFrom(column, 40);
    copy.push("next");
    expect([copy.length, copy.get(0), copy.get(39), copy.get(40)]).toEqual([41, "v0", "v39", "next"]);
    expect(column.get(40)).toBe("v40");
  });
});
