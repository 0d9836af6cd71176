import { afterEach, describe, expect, it } from "vitest";
import { readTurn, runWithCompactor, summaryTurn, textTurn, type CompactionRun } from "./compact-support.ts";

let run: CompactionRun | undefined;
afterEach(async () => {
  await run?.sim.close();
  run = undefined;
});

const tooLong = { kind: "http" as const, status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" };

describe("prompt too long end to end", () => {
  it("compacts reactively and retries the request once", async () => {
    run = await runWithCompactor({
      // Turn 2 refuses the loop's request as too long; the summary request then gets that turn's answer.
      scenario: { turns: [readTurn(1), readTurn(2), { ...summaryTurn, faults: [tooLong] }, textTurn("Done after compaction.")] },
      files: 2,
      compactor: { keep: { turns: 1 } },
    });
    const { terminal, events, written, mainBodies, summaryBodies, sim } = run;
    expect(terminal.reason).toBe("completed");
    expect(events.filter((event) => event.type === "error")).toEqual([]);
    expect(events.flatMap((event) => (event.type === "compact-boundary" ? [event.trigger] : []))).toEqual(["reactive"]);
    expect(written.find((line) => line.type === "system")).toMatchObject({ subtype: "compact_boundary", compactMetadata: { trigger: "reactive" } });
    // The refused request, the summary, and the one retry of the loop's request.
    expect(sim.requests.filter((request) => request.path === "/v1/messages").map((request) => [request.turnIndex, request.attempt])).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
      [2, 2],
      [3, 1],
    ]);
    expect(summaryBodies).toHaveLength(1);
    expect(mainBodies).toHaveLength(4);
    const retried = JSON.stringify(mainBodies[3]!.messages);
    expect(retried).toContain("1. Primary request: read the source files");
    expect(retried).not.toContain("toolu_read_1");
    expect(retried).toContain("toolu_read_2");
  });

  it("surfaces the error when the retried request is still too long: reactive compaction runs only once", async () => {
    run = await runWithCompactor({
      scenario: { turns: [readTurn(1), readTurn(2), { ...summaryTurn, faults: [tooLong] }, { ...textTurn("never"), faults: [tooLong] }] },
      files: 2,
      compactor: { keep: { turns: 1 } },
    });
    const { terminal, events, summaryBodies } = run;
    expect(terminal.reason).toBe("prompt_too_long");
    expect(summaryBodies).toHaveLength(1);
    expect(events.filter((event) => event.type === "compact-boundary")).toHaveLength(1);
    expect(events.filter((event) => event.type === "error").map((event) => event.type === "error" && event.code)).toEqual(["prompt_too_long"]);
  });
});
