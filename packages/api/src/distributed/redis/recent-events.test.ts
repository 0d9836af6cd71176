import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../router/types.ts";
import { RecentEvents } from "./recent-events.ts";

const notice = (message: string): SessionEvent => ({ type: "notice", level: "info", code: "step", message });

describe("RecentEvents", () => {
  it("holds the last events by seq, as many as its size", () => {
    const recent = new RecentEvents(4);
    for (let seq = 1; seq <= 6; seq++) recent.set({ seq, event: notice(`${seq}`) });
    expect([1, 2, 3, 4, 5, 6].map((seq) => recent.has(seq))).toEqual([false, false, true, true, true, true]);
    expect(recent.get(5)?.event).toEqual(notice("5"));
    expect(recent.get(9)).toBeUndefined();
  });

  it("keeps a newer event when an older one read back from the stream falls in its slot; one at the same seq replaces it", () => {
    const recent = new RecentEvents(4);
    recent.set({ seq: 6, event: notice("6") });
    recent.set({ seq: 2, event: notice("2") });
    expect(recent.has(2)).toBe(false);
    expect(recent.get(6)?.event).toEqual(notice("6"));
    recent.set({ seq: 6, event: notice("6, the stream's") });
    expect(recent.get(6)?.event).toEqual(notice("6, the stream's"));
  });

  it("gives every event after a seq through the last, only when it holds them all", () => {
    const recent = new RecentEvents(4);
    for (let seq = 1; seq <= 6; seq++) recent.set({ seq, event: notice(`${seq}`) });
    expect(recent.after(3, 6)?.map((item) => item.seq)).toEqual([4, 5, 6]);
    expect(recent.after(5, 6)?.map((item) => item.seq)).toEqual([6]);
    // 2 fell out of the ring; nothing after the last; a last beyond what it holds.
    expect(recent.after(1, 6)).toBeNull();
    expect(recent.after(6, 6)).toBeNull();
    expect(recent.after(4, 7)).toBeNull();
  });

  it("forgets the events from a seq on", () => {
    const recent = new RecentEvents(8);
    for (let seq = 1; seq <= 6; seq++) recent.set({ seq, event: notice(`${seq}`) });
    recent.dropFrom(4);
    expect([1, 2, 3, 4, 5, 6].map((seq) => recent.has(seq))).toEqual([true, true, true, false, false, false]);
    recent.set({ seq: 4, event: notice("4 again") });
    expect(recent.get(4)?.event).toEqual(notice("4 again"));
  });
});
