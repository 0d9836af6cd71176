import { describe, expect, it } from "vitest";
import { Notifier } from "./notifier.ts";

describe("Notifier", () => {
  it("keeps a notification made while nobody waits: no wake-up is lost, and a burst is one pass", async () => {
    const notifier = new Notifier();
    notifier.notify();
    notifier.notify();
    expect(notifier.pending).toBe(true);
    expect(await notifier.wait()).toBe(true);
    expect(notifier.pending).toBe(false);
    let woken = false;
    const waiting = notifier.wait().then((notified) => (woken = notified));
    await Promise.resolve();
    expect(woken).toBe(false);
    notifier.notify();
    await waiting;
    expect(woken).toBe(true);
  });

  it("starts notified when asked, so a loop reads what is there before it first waits", async () => {
    expect(await new Notifier({ notified: true }).wait()).toBe(true);
  });

  it("wakes the loop in order with its producer: every item pushed before a notify is seen after the wait", async () => {
    const notifier = new Notifier();
    const queue: number[] = [];
    const seen: number[] = [];
    const consumer = (async () => {
      while (seen.length < 100) {
        if (queue.length === 0) await notifier.wait();
        seen.push(...queue.splice(0));
      }
    })();
    for (let item = 0; item < 100; item++) {
      queue.push(item);
      notifier.notify();
      if (item % 7 === 0) await Promise.resolve();
    }
    await consumer;
    expect(seen).toEqual(Array.from({ length: 100 }, (_, index) => index));
  });

  it("returns false on abort and on close, and at once for every wait after close", async () => {
    const notifier = new Notifier();
    const controller = new AbortController();
    const aborted = notifier.wait(controller.signal);
    controller.abort();
    expect(await aborted).toBe(false);
    expect(await notifier.wait(controller.signal)).toBe(false);

    const closing = notifier.wait();
    notifier.close();
    expect(await closing).toBe(false);
    expect(notifier.isClosed).toBe(true);
    expect(await notifier.wait()).toBe(false);
    notifier.notify();
    expect(await notifier.wait()).toBe(true);
  });

  it("allows one waiter at a time, and removes its abort listener when woken", async () => {
    const notifier = new Notifier();
    const controller = new AbortController();
    let listeners = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners += 1;
      add(...args);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      listeners -= 1;
      remove(...args);
    }) as typeof signal.removeEventListener;
    const first = notifier.wait(signal);
    await expect(notifier.wait()).rejects.toThrow(/already pending/);
    expect(listeners).toBe(1);
    notifier.notify();
    expect(await first).toBe(true);
    expect(listeners).toBe(0);
  });
});
