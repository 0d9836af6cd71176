import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { QuietMoments } from "./quiet-moments";

describe("QuietMoments", () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000;
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it("is quiet at once when nothing happened", () => {
    const quiet = new QuietMoments(400, 3_000, { now, target: null });
    expect(quiet.remaining(clock)).toBe(0);
  });

  it("waits until the last input or drawing is quietMs old", () => {
    const quiet = new QuietMoments(400, 3_000, { now, target: null });
    quiet.touch();
    clock += 150;
    expect(quiet.remaining(clock)).toBe(250);
  });

  it("waits no longer than maxWaitMs from when the wait began", () => {
    const quiet = new QuietMoments(400, 3_000, { now, target: null });
    const since = clock;
    clock += 2_900;
    quiet.touch();
    expect(quiet.remaining(since)).toBe(100);
  });

  it("counts input events of its target, and no longer after stop()", () => {
    const target = new EventTarget();
    const quiet = new QuietMoments(400, 3_000, { now, target });
    target.dispatchEvent(new Event("keydown"));
    expect(quiet.remaining(clock)).toBe(400);
    clock += 1_000;
    quiet.stop();
    target.dispatchEvent(new Event("pointerdown"));
    expect(quiet.remaining(clock)).toBe(0);
  });

  it("moment() resolves after the quiet time, input meanwhile pushing it on", async () => {
    const quiet = new QuietMoments(400, 3_000, { now, target: null });
    quiet.touch();
    let resolved = false;
    void quiet.moment(new AbortController().signal).then(() => {
      resolved = true;
    });
    clock += 300;
    await vi.advanceTimersByTimeAsync(300);
    quiet.touch();
    clock += 200;
    await vi.advanceTimersByTimeAsync(200);
    expect(resolved).toBe(false);
    clock += 300;
    await vi.advanceTimersByTimeAsync(300);
    expect(resolved).toBe(true);
  });

  it("moment() resolves at once when its signal aborts", async () => {
    const quiet = new QuietMoments(400, 3_000, { now, target: null });
    quiet.touch();
    const controller = new AbortController();
    const waiting = quiet.moment(controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
  });
});
