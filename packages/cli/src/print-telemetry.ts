import { createPendingSessionTelemetry, type Telemetry, type TelemetryHandle } from "@cairn/api/telemetry";
import type { CliEnv } from "./env.ts";

export type LazyTelemetry = ReturnType<typeof lazyTelemetry>;

/** Long enough that a `cairn -p` run sends its spans and log records once, at exit (a full batch still goes at once). */
const PRINT_BATCH_DELAY_MS = 10 * 60_000;

/**
 * Telemetry (CAIRN_ENABLE_TELEMETRY=1) for one run. The SDK is loaded only when `start` is first called (once the
 * first model request is on its way, so its loading overlaps the model's answer instead of delaying the request),
 * and events seen before then are replayed with their times. Spans and log records go out in one batch per signal at
 * exit. A failure to start or to export costs the run a warning, not the run.
 */
export function lazyTelemetry(config: NonNullable<CliEnv["telemetry"]>, io: { stderr: (text: string) => void }, version: string) {
  let starting: Promise<TelemetryHandle | undefined> | undefined;
  let used = false;
  let resolveReady: (telemetry: Telemetry | undefined) => void = () => undefined;
  const ready = new Promise<Telemetry | undefined>((resolve) => (resolveReady = resolve));
  const start = () => {
    if (starting) return starting;
    starting = import("@cairn/api/telemetry")
      .then(({ startTelemetry }) =>
        startTelemetry(config, { serviceVersion: version, warn: (message) => io.stderr(`cairn: ${message}\n`), batchDelayMs: PRINT_BATCH_DELAY_MS }),
      )
      .catch((error: unknown) => {
        io.stderr(`cairn: telemetry: could not start: ${(error as Error).message}\n`);
        return undefined;
      });
    void starting.then((handle) => resolveReady(handle?.telemetry));
    return starting;
  };
  return {
    session(sessionId: string) {
      used = true;
      return createPendingSessionTelemetry(ready, { sessionId });
    },
    start,
    async shutdown() {
      if (!used && !starting) return;
      await (await start())?.shutdown();
    },
  };
}
