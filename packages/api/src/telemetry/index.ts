export { createPendingSessionTelemetry } from "./pending-session-telemetry.ts";
export { createSessionTelemetry } from "./session-telemetry.ts";
export type { SessionTelemetry, TurnTelemetry } from "./session-telemetry.ts";
export { startTelemetry } from "./start-telemetry.ts";
export type { TelemetryHandle } from "./start-telemetry.ts";
export { telemetryConfigFromEnv } from "./telemetry-config.ts";
export type { TelemetryConfig } from "./telemetry-config.ts";
export type { Telemetry } from "./telemetry-port.ts";
