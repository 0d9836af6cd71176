import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "@cairn/core";
import { quickRetry, readTurn, runWithCompactor, serverError, sizeOf, smallWindow, textTurn, type CompactionRun } from "./compact-support.ts";

let run: CompactionRun | undefined;
afterEach(async () => {
  await run?.sim.close();
  run = undefined;
});

const notices = (events: AgentEvent[]) => events.flatMap((event) => (event.type === "notice" ? [event] : []));
const noSnipOrMicro = { ...smallWindow, snip: false, microcompact: false, retry: quickRetry } as const;

describe("failed summaries end to end", () => {
  it("keeps the whole context when the summary call fails after its retries", async () => {
    run = await runWithCompactor({
      // The fifth turn answers 500 twice: both attempts of the summary call fail, then the loop's own request gets the turn.
      scenario: { turns: [readTurn(1), readTurn(2), readTurn(3), readTurn(4), { ...textTurn("Read them all."), faults: [serverError, serverError] }] },
      files: 4,
      compactor: noSnipOrMicro,
      config: { retry: quickRetry },
    });
    const { terminal, events, written, mainBodies, summaryBodies } = run;
    expect(terminal.reason).toBe("completed");
    expect(summaryBodies).toHaveLength(2);
    expect(run.sim.requests.filter((request) => request.turnIndex === 4).map((request) => request.attempt)).toEqual([1, 2, 3]);
    expect(events.some((event) => event.type === "compact-boundary")).toBe(false);
    expect(written.some((line) => line.type === "system")).toBe(false);
    // Nothing was lost: the request after the failed compaction carries every read, and is the largest yet.
    const last = mainBodies.at(-1)!;
    for (let file = 1; file <= 4; file++) expect(JSON.stringify(last.messages)).toContain(`toolu_read_${file}`);
    expect(sizeOf(last)).toBeGreaterThan(sizeOf(mainBodies.at(-2)));
    expect(run.store.getState().compaction).toEqual({ consecutiveFailures: 1, breakerTripped: false });
    expect(run.compactor.getState().lastError).toMatchObject({ code: "summary_failed" });
    expect(notices(events).filter((notice) => notice.code.startsWith("compact_"))).toEqual([]);
  });

  it("trips the breaker after three failures in a row, tells the user, and stops summarising", async () => {
    run = await runWithCompactor({
      scenario: {
        turns: [
          readTurn(1),
          readTurn(2),
          readTurn(3),
          readTurn(4),
          { ...readTurn(5), faults: [serverError, serverError] },
          { ...readTurn(6), faults: [serverError, serverError] },
          { ...readTurn(7), faults: [serverError, serverError] },
          textTurn("Done reading."),
        ],
      },
      files: 7,
      compactor: noSnipOrMicro,
      config: { retry: quickRetry },
    });
    const { terminal, events, summaryBodies, mainBodies } = run;
    // With the breaker tripped and the conversation past the hard limit, the loop ends instead of sending a doomed request.
    expect(terminal.reason).toBe("blocking_limit");
    // Three failed compactions of two attempts each, and no fourth attempt once the breaker tripped.
    expect(summaryBodies).toHaveLength(6);
    expect(mainBodies).toHaveLength(6);
    const tripped = notices(events).filter((notice) => notice.code === "compact_breaker_tripped");
    expect(tripped).toHaveLength(1);
    expect(tripped[0]!.message).toMatch(/failed 3 times in a row .*simulated outage/);
    expect(events.some((event) => event.type === "compact-boundary")).toBe(false);
    expect(run.store.getState().compaction).toEqual({ consecutiveFailures: 3, breakerTripped: true });
    // The notice came before the seventh loop request, i.e. right after the third failure.
    const noticeAt = events.indexOf(tripped[0]!);
    const requestStarts = events.flatMap((event, index) => (event.type === "request-start" ? [index] : []));
    expect(requestStarts.filter((index) => index < noticeAt)).toHaveLength(6);
  });
});
