import { describe, expect, it } from "vitest";
import { FLUSH_DELAY_MS, HIGH_WATER_CHARS, LOW_WATER_CHARS, MAX_BATCH_CHARS, TerminalOutputFlow } from "./terminal-output-flow.ts";

/** A flow with a hand-driven timer and a recording pty control. */
function harness() {
  const sent: string[] = [];
  const timers: { callback: () => void; ms: number }[] = [];
  const control = { pauses: 0, resumes: 0, pause: () => void control.pauses++, resume: () => void control.resumes++ };
  const flow = new TerminalOutputFlow({
    send: (data) => sent.push(data),
    setTimer: (callback, ms) => {
      const timer = { callback, ms };
      timers.push(timer);
      return timer;
    },
    clearTimer: (timer) => {
      const index = timers.indexOf(timer as (typeof timers)[number]);
      if (index >= 0) timers.splice(index, 1);
    },
  });
  const fire = () => {
    for (const timer of timers.splice(0)) timer.callback();
  };
  return { flow, sent, timers, control, fire };
}

describe("TerminalOutputFlow", () => {
  it("holds output until started, then joins what comes within the flush delay into one message", () => {
    const { flow, sent, timers, control, fire } = harness();
    flow.push("before ");
    flow.push("open");
    expect(timers).toHaveLength(0);
    flow.start(control);
    flow.push(" and after");
    expect(sent).toEqual([]);
    expect(timers).toHaveLength(1);
    expect(timers[0]!.ms).toBe(FLUSH_DELAY_MS);
    fire();
    expect(sent).toEqual(["before open and after"]);
    flow.push("");
    expect(timers).toHaveLength(0);
  });

  it("sends a full batch at once and flushes what waits on demand", () => {
    const { flow, sent, control } = harness();
    flow.start(control);
    flow.push("x".repeat(MAX_BATCH_CHARS));
    expect(sent.map((data) => data.length)).toEqual([MAX_BATCH_CHARS]);
    flow.push("tail");
    flow.flush();
    expect(sent.at(-1)).toBe("tail");
    flow.flush();
    expect(sent).toHaveLength(2);
  });

  it("pauses the pty above the high-water mark and resumes it once acknowledgements bring it under the low mark", () => {
    const { flow, sent, control } = harness();
    flow.start(control);
    const batches = Math.ceil(HIGH_WATER_CHARS / MAX_BATCH_CHARS) + 1;
    for (let index = 0; index < batches; index++) flow.push("y".repeat(MAX_BATCH_CHARS));
    expect(sent).toHaveLength(batches);
    expect(flow.unacknowledged).toBe(batches * MAX_BATCH_CHARS);
    expect(control.pauses).toBe(1);
    expect(flow.paused).toBe(true);
    // More output while paused (what the pty had already read) is still sent, and does not pause twice.
    flow.push("z".repeat(MAX_BATCH_CHARS));
    expect(control.pauses).toBe(1);
    flow.acknowledge(flow.unacknowledged - LOW_WATER_CHARS - 1);
    expect(control.resumes).toBe(0);
    flow.acknowledge(1);
    expect(control.resumes).toBe(1);
    expect(flow.paused).toBe(false);
    // Acknowledging more than was sent (a stale ack) never goes below zero.
    flow.acknowledge(10 * HIGH_WATER_CHARS);
    expect(flow.unacknowledged).toBe(0);
    expect(control.resumes).toBe(1);
  });

  it("stops its timer when disposed", () => {
    const { flow, timers, control } = harness();
    flow.start(control);
    flow.push("late");
    expect(timers).toHaveLength(1);
    flow.dispose();
    expect(timers).toHaveLength(0);
    flow.push("after the exit");
    expect(timers).toHaveLength(0);
  });
});
