import type { Attributes, Counter, Tracer } from "@opentelemetry/api";

/** The instruments Cairn records, named as Claude Code's with the `cairn.` prefix. */
export type TelemetryInstruments = {
  sessionCount: Counter;
  tokenUsage: Counter;
  costUsage: Counter;
  linesOfCode: Counter;
  codeEditToolDecision: Counter;
  activeTime: Counter;
};

/** What the session code records into: a tracer, the instruments and log events. Backed by the SDK when telemetry is on. */
export type Telemetry = {
  tracer: Tracer;
  instruments: TelemetryInstruments;
  /** One log event (`cairn.api_request`, …) that happened at `at` (epoch ms, now by default); attribute values are already free of secrets. */
  emit(name: string, attributes: Attributes, at?: number): void;
  logUserPrompts: boolean;
  logToolDetails: boolean;
};
