import { createRequire } from "node:module";

/**
 * Decodes an OTLP/HTTP request body as a receiver would: JSON as is; protobuf with the OTLP protos
 * compiled into `@opentelemetry/otlp-transformer` 0.57 (installed as `otlp-transformer-protos`),
 * normalised to the JSON encoding's shape (hex ids, camelCase fields).
 */
export type OtlpSignal = "traces" | "metrics" | "logs";

type ProtoMessage = { decode(bytes: Uint8Array): unknown; toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown> };
type ProtoRoot = {
  opentelemetry: {
    proto: {
      collector: {
        trace: { v1: { ExportTraceServiceRequest: ProtoMessage } };
        metrics: { v1: { ExportMetricsServiceRequest: ProtoMessage } };
        logs: { v1: { ExportLogsServiceRequest: ProtoMessage } };
      };
    };
  };
};

const require = createRequire(import.meta.url);
let root: ProtoRoot | undefined;

function requestType(signal: OtlpSignal): ProtoMessage {
  root ??= require("otlp-transformer-protos/build/src/generated/root.js") as ProtoRoot;
  const collector = root.opentelemetry.proto.collector;
  if (signal === "traces") return collector.trace.v1.ExportTraceServiceRequest;
  if (signal === "metrics") return collector.metrics.v1.ExportMetricsServiceRequest;
  return collector.logs.v1.ExportLogsServiceRequest;
}

const ID_FIELDS = new Set(["traceId", "spanId", "parentSpanId"]);

function normalise(value: unknown, key?: string): unknown {
  if (typeof value === "string" && key && ID_FIELDS.has(key)) return Buffer.from(value, "base64").toString("hex");
  if (Array.isArray(value)) return value.map((item) => normalise(item));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([field, item]) => [field, normalise(item, field)]));
  }
  return value;
}

export function decodeOtlp(signal: OtlpSignal, contentType: string, bytes: Buffer): unknown {
  if (contentType.includes("json")) return JSON.parse(bytes.toString("utf8"));
  if (!contentType.includes("protobuf")) throw new Error(`unexpected OTLP content type ${contentType}`);
  const type = requestType(signal);
  const message = type.decode(bytes);
  return normalise(type.toObject(message, { longs: String, bytes: String, arrays: true, enums: String }));
}
