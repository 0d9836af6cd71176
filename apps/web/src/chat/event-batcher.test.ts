import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createEventBatcher, type QueuedEvent } from "./event-batcher.ts";

const item = (id: string): QueuedEvent => ({ id, event: { type: "text-delta", index: 0, text: id } });

describe("createEventBatcher", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("applies the events of one frame together, once", () => {
    const batches: string[][] = [];
    const batcher = createEventBatcher((batch) => batches.push(batch.map((queued) => queued.id)), 16);
    batcher.push(item("1"));
    batcher.push(item("2"));
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(16);
    batcher.push(item("3"));
    vi.advanceTimersByTime(16);
    expect(batches).toEqual([["1", "2"], ["3"]]);
  });

  it("flushes at once on demand, and drain hands back the queue without applying it", () => {
    const batches: string[][] = [];
    const batcher = createEventBatcher((batch) => batches.push(batch.map((queued) => queued.id)), 16);
    batcher.push(item("1"));
    batcher.flush();
    batcher.flush();
    expect(batches).toEqual([["1"]]);
    batcher.push(item("2"));
    expect(batcher.drain().map((queued) => queued.id)).toEqual(["2"]);
    vi.advanceTimersByTime(100);
    expect(batches).toEqual([["1"]]);
  });
});
