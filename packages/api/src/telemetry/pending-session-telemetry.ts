import { createSessionTelemetry, type SessionTelemetry, type TurnTelemetry } from "./session-telemetry.ts";
import type { Telemetry } from "./telemetry-port.ts";

/**
 * A session's telemetry while the SDK is still loading: each call is kept with the time it happened and
 * replayed, in order and with those times, once `ready` gives the SDK; if it gives none (telemetry could not
 * start), the calls are dropped. This lets `cairn -p` send its first model request without waiting for the
 * OpenTelemetry packages, which then load while the model answers.
 */
export function createPendingSessionTelemetry(ready: Promise<Telemetry | undefined>, session: { sessionId: string }): SessionTelemetry {
  let live: SessionTelemetry | undefined;
  let dropped = false;
  let queue: Array<(target: SessionTelemetry) => void> = [];
  const run = (call: (target: SessionTelemetry) => void) => {
    if (live) call(live);
    else if (!dropped) queue.push(call);
  };
  void ready.then(
    (telemetry) => {
      const calls = queue;
      queue = [];
      if (!telemetry) {
        dropped = true;
        return;
      }
      const target = createSessionTelemetry(telemetry, session);
      for (const call of calls) call(target);
      live = target;
    },
    () => {
      dropped = true;
      queue = [];
    },
  );
  return {
    started() {
      run((target) => target.started());
    },
    turn(prompt, at = Date.now()): TurnTelemetry {
      let turn: TurnTelemetry | undefined;
      run((target) => {
        turn = target.turn(prompt, at);
      });
      return {
        observe(event, eventAt = Date.now()) {
          run(() => turn?.observe(event, eventAt));
        },
      };
    },
  };
}
