import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../router/types.ts";
import { MemoryEventBus } from "./event-bus.ts";

const notice = (code: string): SessionEvent => ({ type: "notice", level: "info", code, message: code });

describe("MemoryEventBus", () => {
  it("numbers each session's events 1, 2, 3 and delivers them to that session's listeners", () => {
    const bus = new MemoryEventBus();
    const seen: number[] = [];
    const unsubscribe = bus.subscribe("a", (item) => seen.push(item.seq));
    expect(bus.publish("a", notice("one"))).toBe(1);
    expect(bus.publish("b", notice("other"))).toBe(1);
    expect(bus.publish("a", notice("two"))).toBe(2);
    expect(seen).toEqual([1, 2]);
    expect(bus.listenerCount("a")).toBe(1);
    expect(bus.listenerCount()).toBe(1);
    unsubscribe();
    expect(bus.listenerCount()).toBe(0);
  });

  it("replays what follows a seq while it is retained, and reports a gap otherwise", () => {
    const bus = new MemoryEventBus({ ringSize: 3 });
    for (let index = 1; index <= 5; index++) bus.publish("s", notice(String(index)));
    expect(bus.replay("s", 3)).toEqual({
      kind: "events",
      events: [
        { seq: 4, event: notice("4") },
        { seq: 5, event: notice("5") },
      ],
    });
    expect(bus.replay("s", 2).kind).toBe("events");
    expect(bus.replay("s", 5)).toEqual({ kind: "events", events: [] });
    // Seq 2 is gone: a subscriber that saw only seq 1 cannot be served from the ring.
    const behind = bus.replay("s", 1);
    expect(behind.kind).toBe("gap");
    expect(behind.events.map((item) => item.seq)).toEqual([3, 4, 5]);
    // Ahead of the bus: the server restarted under a reconnecting browser.
    expect(bus.replay("s", 99).kind).toBe("gap");
    expect(bus.replay("new", 0)).toEqual({ kind: "events", events: [] });
  });
});
