import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, ConversationMessage } from "@cairn/core";
import { readTurn, runWithCompactor, sizeOf, smallWindow, summaryTurn, textTurn, type CompactionRun } from "./compact-support.ts";

let run: CompactionRun | undefined;
afterEach(async () => {
  await run?.sim.close();
  run = undefined;
});

const ofType = <T extends AgentEvent["type"]>(events: AgentEvent[], type: T) =>
  events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);

describe("auto-compaction end to end (runPrompt → query → SDK → model-sim)", () => {
  it("writes a boundary, sends the summary request, and the next request is smaller than the one before", async () => {
    run = await runWithCompactor({
      // Four reads push the context past 7,800 tokens; the fifth request is the summary.
      scenario: { turns: [readTurn(1), readTurn(2), readTurn(3), readTurn(4), summaryTurn, textTurn("All four files are read.")] },
      files: 4,
      compactor: { ...smallWindow, snip: false, microcompact: false, keep: { turns: 1, tokenRatio: 0.35 } },
    });
    const { events, terminal, written, mainBodies, summaryBodies } = run;
    expect(terminal.reason).toBe("completed");

    // The summary request: no tools, the older conversation, the structured prompt.
    expect(summaryBodies).toHaveLength(1);
    const summaryRequest = JSON.stringify(summaryBodies[0]!.messages);
    expect(summaryRequest).toContain("f1");
    expect(summaryRequest).toContain("Pending tasks");

    // The boundary and summary were written to the transcript, chained so a resume starts from them.
    const boundaryAt = written.findIndex((line) => line.type === "system" && line.subtype === "compact_boundary");
    expect(boundaryAt).toBeGreaterThan(0);
    const boundary = written[boundaryAt]!;
    expect(boundary).toMatchObject({ parentUuid: null, compactMetadata: { trigger: "auto" } });
    const metadata = boundary.type === "system" ? boundary.compactMetadata! : undefined;
    expect(metadata!.preTokens).toBeGreaterThan(7_800);
    expect(metadata!.postTokens).toBeLessThan(metadata!.preTokens / 2);
    expect(boundary.type === "system" && boundary.logicalParentUuid).toBe(metadata!.summarizedUuids!.at(-1));
    expect(written[boundaryAt + 1]).toMatchObject({ type: "user", isCompactSummary: true, parentUuid: boundary.uuid });
    const byUuid = new Map(written.map((line) => [line.uuid, line] as const));
    let cursor: ConversationMessage | undefined = written.at(-1);
    while (cursor && cursor.parentUuid) cursor = byUuid.get(cursor.parentUuid);
    expect(cursor?.uuid).toBe(boundary.uuid);
    expect(ofType(events, "compact-boundary")).toHaveLength(1);

    // Four loop requests before the compaction, one after; the one after is smaller.
    expect(mainBodies).toHaveLength(5);
    const [before, after] = [mainBodies[3]!, mainBodies[4]!];
    expect(sizeOf(after)).toBeLessThan(sizeOf(before));
    const afterText = JSON.stringify(after.messages);
    expect(afterText).toContain("1. Primary request: read the source files f1 to f4");
    // The last round was kept verbatim; the earlier reads come back only as a bounded attachment.
    expect(afterText).toContain("toolu_read_4");
    expect(afterText).not.toContain("toolu_read_1");
    expect(afterText).toContain('<file path=\\"/workspace/src/f3.ts\\" contents=\\"current\\">');
    expect(run.compactor.getState()).toMatchObject({ compactions: 1, consecutiveFailures: 0, breakerTripped: false });
  });
});
