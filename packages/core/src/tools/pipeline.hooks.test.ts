import { describe, expect, it } from "vitest";
import { baseParams } from "../loop/query-test-params.ts";
import { query } from "../loop/query.ts";
import { emptyHookOutcome, type HookDispatcher, type HookEventName } from "../hooks/port.ts";
import { toolCallRecordSchema } from "../schema/messages.ts";
import { collectEvents, createScriptedModel, createTestTool, eventsOf, fixedClock, testDeps } from "../testing/index.ts";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");

function scripted() {
  return createScriptedModel([
    { content: [{ type: "tool_use", id: "w1", name: "Write", input: { value: "data" } }] },
    { content: [{ type: "text", text: "ok" }] },
  ]);
}

/** Hooks that take `durations[event]` ms on the test clock; `verdicts` shapes what each says. */
function timedHooks(
  clock: ReturnType<typeof fixedClock>,
  durations: Partial<Record<HookEventName, number>>,
  verdicts: Partial<Record<HookEventName, "block" | "fail">> = {},
): HookDispatcher {
  return {
    async dispatch(event) {
      const outcome = emptyHookOutcome();
      const durationMs = durations[event];
      if (durationMs === undefined) return outcome;
      clock.advance(durationMs);
      const hookName = `${event}.sh`;
      const verdict = verdicts[event];
      outcome.ran.push({ hookName, durationMs, exitCode: verdict === "block" ? 2 : verdict === "fail" ? 1 : 0 });
      if (verdict === "block") outcome.blocked = { hookName, reason: "frozen" };
      if (verdict === "fail") outcome.errors.push({ hookName, message: "exit 1" });
      return outcome;
    },
  };
}

async function recordOf(hooks: HookDispatcher, clock: ReturnType<typeof fixedClock>, run?: () => void) {
  const write = createTestTool({ name: "Write", safe: false, run: () => (run?.(), "written") });
  const model = scripted();
  const { events } = await collectEvents(query(baseParams({ deps: testDeps(model, { now: clock.now }), tools: [write], hooks })));
  const record = eventsOf(events, "tool-end")[0]!.record;
  expect(toolCallRecordSchema.safeParse(record).success).toBe(true);
  return record;
}

describe("tool pipeline: hook timings on the call record", () => {
  it("records PreToolUse and PostToolUse runs with their times and outcomes", async () => {
    const clock = fixedClock(T0);
    const record = await recordOf(timedHooks(clock, { PreToolUse: 5, PostToolUse: 3 }, { PostToolUse: "fail" }), clock, () => clock.advance(20));
    expect(record.hooks).toEqual([
      { event: "PreToolUse", name: "PreToolUse.sh", startedAt: T0, endedAt: T0 + 5, outcome: "ok" },
      { event: "PostToolUse", name: "PostToolUse.sh", startedAt: T0 + 25, endedAt: T0 + 28, outcome: "error" },
    ]);
    expect(record.startedAt).toBe(T0);
    expect(record.endedAt).toBe(T0 + 28);
  });

  it("records a blocking PreToolUse hook as blocked", async () => {
    const clock = fixedClock(T0);
    const record = await recordOf(timedHooks(clock, { PreToolUse: 7 }, { PreToolUse: "block" }), clock);
    expect(record.errorClass).toBe("HookBlocked");
    expect(record.hooks).toEqual([{ event: "PreToolUse", name: "PreToolUse.sh", startedAt: T0, endedAt: T0 + 7, outcome: "blocked" }]);
  });

  it("leaves the field out when no hook ran", async () => {
    const clock = fixedClock(T0);
    const record = await recordOf(timedHooks(clock, {}), clock);
    expect(record).not.toHaveProperty("hooks");
  });
});
