import { describe, expect, it } from "vitest";
import { formatCount } from "./format";

describe("formatCount", () => {
  it("groups thousands with commas", () => {
    expect([0, 7, 999, 1_000, 12_345, 100_000, 1_000_000, 1_234_567_890].map(formatCount)).toEqual([
      "0",
      "7",
      "999",
      "1,000",
      "12,345",
      "100,000",
      "1,000,000",
      "1,234,567,890",
    ]);
  });

  it("keeps the sign and drops fractions", () => {
    expect(formatCount(-4_321)).toBe("-4,321");
    expect(formatCount(2_500.7)).toBe("2,500");
  });
});
