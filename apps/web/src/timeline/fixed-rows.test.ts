import { describe, expect, it } from "vitest";
import { rowsWindow, scrollToRow } from "./fixed-rows";

describe("rowsWindow", () => {
  const small = { count: 1_000, rowHeight: 40, viewportHeight: 400 };

  it("shows the rows under the scroll position, with overscan, drawn where they scroll to", () => {
    const window = rowsWindow(small, 4_000, 2);
    expect([window.first, window.end]).toEqual([98, 112]);
    expect(window.spacerHeight).toBe(40_000);
    expect(window.top(100)).toBe(4_000);
  });

  it("clamps at both ends", () => {
    expect(rowsWindow(small, 0, 5).first).toBe(0);
    const last = rowsWindow(small, 40_000 - 400, 5);
    expect(last.end).toBe(1_000);
    expect(rowsWindow({ ...small, count: 0 }, 0, 5)).toMatchObject({ first: 0, end: 0, spacerHeight: 0 });
  });

  it("maps a list taller than the largest spacer onto it: top, middle and the very last row reachable", () => {
    const huge = { count: 1_000_000, rowHeight: 40, viewportHeight: 400, maxScrollPx: 8_000_000 };
    const range = 8_000_000 - 400;
    expect(rowsWindow(huge, 0, 0)).toMatchObject({ first: 0, spacerHeight: 8_000_000 });
    const middle = rowsWindow(huge, range / 2, 0);
    expect(middle.first).toBe(Math.floor((40_000_000 - 400) / 2 / 40));
    // The rows in view are drawn inside the viewport, in order, a row height apart.
    expect(middle.top(middle.first)).toBeGreaterThan(range / 2 - 40);
    expect(middle.top(middle.first)).toBeLessThanOrEqual(range / 2);
    expect(middle.top(middle.first + 1) - middle.top(middle.first)).toBe(40);
    const end = rowsWindow(huge, range, 0);
    expect(end.end).toBe(1_000_000);
    expect(end.top(999_999)).toBe(8_000_000 - 40);
  });
});

describe("scrollToRow", () => {
  const small = { count: 1_000, rowHeight: 40, viewportHeight: 400 };

  it("scrolls the least that shows the row, or not at all", () => {
    expect(scrollToRow(small, 0, 3)).toBe(0);
    expect(scrollToRow(small, 0, 20)).toBe(20 * 40 + 40 - 400);
    expect(scrollToRow(small, 4_000, 50)).toBe(2_000);
  });

  it("reaches any row of a list taller than the spacer", () => {
    const huge = { count: 1_000_000, rowHeight: 40, viewportHeight: 400, maxScrollPx: 8_000_000 };
    for (const index of [0, 1, 123_456, 500_000, 999_999]) {
      const scrollTop = scrollToRow(huge, 0, index);
      const window = rowsWindow(huge, scrollTop, 0);
      expect(index).toBeGreaterThanOrEqual(window.first);
      expect(index).toBeLessThan(window.end);
      const top = window.top(index);
      expect(top).toBeGreaterThanOrEqual(scrollTop - 0.001);
      expect(top + 40).toBeLessThanOrEqual(scrollTop + 400 + 0.001);
    }
  });
});
