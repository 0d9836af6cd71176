import { describe, expect, it } from "vitest";
import { checkTargets, formatTargetTable, parseBenchLine, type Target } from "./targets.ts";

const targets: Target[] = [
  { label: "fast", metric: "a.ms", comparison: "<=", limit: 10, unit: "ms" },
  { label: "strict", metric: "b.pct", comparison: "<", limit: 50, unit: "%" },
  { label: "absent", metric: "c.ms", comparison: "<=", limit: 1, unit: "ms" },
];

describe("benchmark targets", () => {
  it("reads BENCH lines and nothing else", () => {
    expect(parseBenchLine("BENCH a.ms 12.5 ms")).toEqual(["a.ms", { value: 12.5, unit: "ms" }]);
    expect(parseBenchLine("BENCH events.rss_per_idle_session -3.64 KiB")).toEqual(["events.rss_per_idle_session", { value: -3.64, unit: "KiB" }]);
    expect(parseBenchLine("# a.ms 12 ms")).toBeNull();
    expect(parseBenchLine("BENCH a.ms twelve ms")).toBeNull();
  });

  it("says met, missed (the limit itself passes only for <=) or not measured", () => {
    const figures = new Map([
      ["a.ms", { value: 10, unit: "ms" }],
      ["b.pct", { value: 50, unit: "%" }],
    ]);
    expect(checkTargets(figures, targets).map((row) => row.met)).toEqual([true, false, null]);
    const table = formatTargetTable(checkTargets(figures, targets));
    expect(table.split("\n")).toHaveLength(5);
    expect(table).toMatch(/fast +\| <= 10 ms +\| 10 ms +\| met/);
    expect(table).toMatch(/strict +\| < 50 % +\| 50 % +\| MISSED/);
    expect(table).toMatch(/absent +\| <= 1 ms +\| not measured +\| —/);
  });
});
