import { describe, expect, it } from "vitest";
import type { TranscriptLine } from "../schema/transcript.ts";
import { buildTimeline } from "./build-timeline.ts";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");

describe("buildTimeline: hooks of session events", () => {
  it("draws each run of a cairn-hooks line on the hooks lane (Stop, UserPromptSubmit, SessionStart, PreCompact)", () => {
    const line = (event: string, at: number, outcome: string, output?: string): TranscriptLine => ({
      type: "cairn-hooks",
      sessionId: "s",
      timestamp: new Date(at).toISOString(),
      event,
      runs: [{ event, name: `${event.toLowerCase()}.sh`, startedAt: at, endedAt: at + 12, outcome, ...(output ? { output } : {}) }],
    });
    const timeline = buildTimeline({
      sessionId: "s",
      title: null,
      cwd: null,
      imported: false,
      lines: [
        line("SessionStart", T0, "ok", "branch main"),
        line("UserPromptSubmit", T0 + 20, "blocked"),
        line("PreCompact", T0 + 40, "ok"),
        line("Stop", T0 + 60, "error"),
      ],
      sidechains: [],
    });
    const hooks = timeline.events.filter((event) => event.kind === "hook");
    expect(hooks.map((event) => [event.title, event.lane, event.start, event.end, event.status])).toEqual([
      ["SessionStart: sessionstart.sh", "hooks", T0, T0 + 12, "ok"],
      ["UserPromptSubmit: userpromptsubmit.sh", "hooks", T0 + 20, T0 + 32, "denied"],
      ["PreCompact: precompact.sh", "hooks", T0 + 40, T0 + 52, "ok"],
      ["Stop: stop.sh", "hooks", T0 + 60, T0 + 72, "error"],
    ]);
    expect(hooks[0]!.summary).toBe("ok · branch main");
    expect(hooks[0]!.detail).toEqual({ kind: "hook", event: "SessionStart", name: "sessionstart.sh", outcome: "ok", toolUseId: null });
    expect(timeline.lanes.find((lane) => lane.id === "hooks")!.items).toHaveLength(4);
  });
});
