import { trace, type Attributes, type Context, type Span, type SpanOptions, type Tracer } from "@opentelemetry/api";
import type { Telemetry } from "./telemetry-port.ts";

type RecordedSpan = { name: string; id: string; parentId: string | undefined; attributes: Attributes; start: number; end: number | undefined };
type RecordedLog = { name: string; attributes: Attributes; at: number | undefined };

/**
 * For tests: a `Telemetry` at the port that records span names, parents and times, log events with their times,
 * and counter additions (the OTLP export itself is covered by test/integration).
 */
export function recordingTelemetry() {
  const spans: RecordedSpan[] = [];
  const logs: RecordedLog[] = [];
  const counts: Array<{ value: number; attributes: Attributes | undefined; instrument: string }> = [];
  const tracer = {
    startSpan(name: string, options: SpanOptions = {}, parent?: Context) {
      const id = `span-${spans.length + 1}`;
      const parentId = parent ? trace.getSpanContext(parent)?.spanId : undefined;
      const record: RecordedSpan = { name, id, parentId, attributes: { ...options.attributes }, start: Number(options.startTime ?? 0), end: undefined };
      spans.push(record);
      const span = {
        spanContext: () => ({ traceId: "t".repeat(32), spanId: id, traceFlags: 1 }),
        setAttributes(attributes: Attributes) {
          Object.assign(record.attributes, attributes);
          return span;
        },
        setStatus: () => span,
        end(at?: number) {
          record.end = Number(at ?? Date.now());
        },
      };
      return span as unknown as Span;
    },
  } as unknown as Tracer;
  const counter = (instrument: string) => ({ add: (value: number, attributes?: Attributes) => void counts.push({ value, attributes, instrument }) });
  const telemetry = {
    tracer,
    instruments: {
      sessionCount: counter("sessionCount"),
      tokenUsage: counter("tokenUsage"),
      costUsage: counter("costUsage"),
      linesOfCode: counter("linesOfCode"),
      codeEditToolDecision: counter("codeEditToolDecision"),
      activeTime: counter("activeTime"),
    },
    emit: (name: string, attributes: Attributes, at?: number) => void logs.push({ name, attributes, at }),
    logUserPrompts: false,
    logToolDetails: false,
  } as unknown as Telemetry;
  return { telemetry, spans, logs, counts };
}
