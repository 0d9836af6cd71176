import type { AgentEvent } from "@cairn/core";
import { describe, expect, test } from "vitest";
import { createPendingSessionTelemetry } from "./pending-session-telemetry.ts";
import { recordingTelemetry } from "./recording-telemetry.ts";
import type { Telemetry } from "./telemetry-port.ts";

const T0 = 1_700_000_000_000;
const assistant = {
  type: "message",
  message: {
    type: "assistant",
    modelCall: { model: "claude-sonnet-4-5", startedAt: T0 + 10, firstTokenAt: T0 + 20, endedAt: T0 + 30, attempts: 1 },
    message: { model: "claude-sonnet-4-5", usage: { input_tokens: 10, output_tokens: 2 } },
  },
} as unknown as AgentEvent;
const decision = {
  type: "permission-decision",
  toolUseId: "toolu_1",
  toolName: "Read",
  behavior: "allow",
  reason: { type: "mode", mode: "default" },
  waitedMs: 0,
} as unknown as AgentEvent;
const result = { type: "result", terminal: { reason: "completed" }, numTurns: 1 } as unknown as AgentEvent;

function deferred() {
  let resolve: (telemetry: Telemetry | undefined) => void = () => undefined;
  const promise = new Promise<Telemetry | undefined>((settle) => (resolve = settle));
  return { promise, resolve };
}

describe("pending session telemetry", () => {
  test("calls made before the SDK is ready are replayed in order, with the times they happened", async () => {
    const { telemetry, spans, logs, counts } = recordingTelemetry();
    const ready = deferred();
    const session = createPendingSessionTelemetry(ready.promise, { sessionId: "s1" });
    session.started();
    const turn = session.turn("read a.ts", T0);
    turn.observe(assistant, T0 + 30);
    turn.observe(decision, T0 + 40);
    expect(spans).toEqual([]);
    expect(logs).toEqual([]);

    ready.resolve(telemetry);
    await ready.promise;
    await Promise.resolve();
    expect(spans.map((span) => span.name)).toEqual(["cairn.turn", "cairn.model_request"]);
    expect(spans[0]?.start).toBe(T0);
    expect(spans[1]?.parentId).toBe(spans[0]?.id);
    expect(logs.map((log) => [log.name, log.at])).toEqual([
      ["cairn.user_prompt", T0],
      ["cairn.api_request", T0 + 30],
      ["cairn.tool_decision", T0 + 40],
    ]);
    expect(counts[0]).toEqual({ value: 1, attributes: { "session.id": "s1" }, instrument: "sessionCount" });

    // Once ready, calls go straight through.
    turn.observe(result, T0 + 500);
    expect(spans[0]?.end).toBe(T0 + 500);
  });

  test("when telemetry could not start (or failed to), the kept calls are dropped and later calls are ignored", async () => {
    for (const outcome of ["none", "rejected"] as const) {
      const ready = deferred();
      const settled = outcome === "none" ? ready.promise : Promise.reject(new Error("no SDK"));
      const session = createPendingSessionTelemetry(settled, { sessionId: "s1" });
      const turn = session.turn("x", T0);
      turn.observe(assistant, T0 + 30);
      ready.resolve(undefined);
      await settled.catch(() => undefined);
      await Promise.resolve();
      expect(() => {
        turn.observe(result, T0 + 40);
        session.started();
      }).not.toThrow();
    }
  });
});
