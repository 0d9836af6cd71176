import { describe, expect, it } from "vitest";
import { latencyStalls } from "./timed-sim.ts";

describe("latencyStalls", () => {
  it("finds the windows holding slow deltas, by when they left the simulator, and joins adjacent ones", () => {
    const emitted = new Map<string, number>();
    const received = new Map<string, number>();
    const delta = (id: string, sentMs: number, waitedMs: number) => {
      emitted.set(id, sentMs);
      received.set(id, sentMs + waitedMs);
    };
    delta("a", 1000, 3); // the round's first delta: its time is 0
    delta("b", 1010, 60); // window 0
    delta("c", 1030, 40); // window 1, joined to window 0
    delta("d", 1040, 10); // fast: no window
    delta("e", 1110, 30); // window 4, on its own
    delta("f", 1120, 90); // window 4
    received.set("never-sent", 2000);
    emitted.set("never-received", 1500);
    expect(latencyStalls(received, emitted, { windowMs: 25, overMs: 25 })).toEqual([
      { fromMs: 0, toMs: 50, deltas: 2, maxMs: 60 },
      { fromMs: 100, toMs: 125, deltas: 2, maxMs: 90 },
    ]);
    expect(latencyStalls(received, emitted, { windowMs: 25, overMs: 100 })).toEqual([]);
  });
});
