import { describe, expect, it } from "vitest";
import { selectedIndexIn } from "./selection";

const events = (...ids: string[]) => ({ length: ids.length, id: (index: number) => ids[index]!, indexOfId: (id: string) => ids.indexOf(id) });

describe("selectedIndexIn", () => {
  it("is null without a selection", () => {
    expect(selectedIndexIn(events("a", "b"), null)).toBeNull();
  });

  it("keeps the position while the event is still there (a timeline that only grew)", () => {
    expect(selectedIndexIn(events("a", "b", "c", "d"), { index: 1, id: "b" })).toBe(1);
  });

  it("finds the event by id when a rebuilt timeline moved it", () => {
    expect(selectedIndexIn(events("x", "a", "y", "b"), { index: 1, id: "b" })).toBe(3);
  });

  it("is null when the event is gone, or not there yet", () => {
    expect(selectedIndexIn(events("a", "c"), { index: 1, id: "b" })).toBeNull();
    expect(selectedIndexIn(events("a"), { index: 5, id: "f" })).toBeNull();
  });
});
