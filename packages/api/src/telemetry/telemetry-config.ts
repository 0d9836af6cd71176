import { z } from "zod";

/** What `CAIRN_ENABLE_TELEMETRY=1` and the standard `OTEL_*` variables ask for. */
export type TelemetryConfig = {
  traces: readonly TelemetryExporterKind[];
  metrics: readonly TelemetryExporterKind[];
  logs: readonly TelemetryExporterKind[];
  protocol: "http/json" | "http/protobuf";
  /** Full URLs per signal (`…/v1/traces`, …). */
  urls: { traces: string; metrics: string; logs: string };
  headers: Record<string, string>;
  resourceAttributes: Record<string, string>;
  metricExportIntervalMs: number;
  exportTimeoutMs: number;
  /** `OTEL_LOG_USER_PROMPTS=1`: `cairn.user_prompt` carries the (redacted) prompt text. */
  logUserPrompts: boolean;
  /** `OTEL_LOG_TOOL_DETAILS=1`: `cairn.tool_result` carries the (redacted) tool input. */
  logToolDetails: boolean;
};

export type TelemetryExporterKind = "otlp" | "console";

/** Built at its first use: telemetry is off in most runs, which then never parse these variables. */
const telemetryEnvSchema = z.lazy(() => {
  const flag = z.enum(["0", "1", "true", "false"]).optional();
  const exporterList = z
    .string()
    .optional()
    .transform((value, context) => {
      const kinds = (value ?? "otlp")
        .split(",")
        .map((kind) => kind.trim())
        .filter((kind) => kind !== "");
      const unknown = kinds.filter((kind) => !["otlp", "console", "none"].includes(kind));
      if (unknown.length > 0) context.addIssue({ code: "custom", message: `unsupported exporter ${unknown.join(", ")} (use otlp, console or none)` });
      return kinds.includes("none") ? [] : (kinds as TelemetryExporterKind[]);
    });
  return z.object({
    CAIRN_ENABLE_TELEMETRY: flag,
    OTEL_TRACES_EXPORTER: exporterList,
    OTEL_METRICS_EXPORTER: exporterList,
    OTEL_LOGS_EXPORTER: exporterList,
    OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(["http/json", "http/protobuf"]).optional(),
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
    OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: z.url().optional(),
    OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: z.url().optional(),
    OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
    OTEL_EXPORTER_OTLP_TIMEOUT: z.coerce.number().int().min(1).optional(),
    OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
    OTEL_METRIC_EXPORT_INTERVAL: z.coerce.number().int().min(1).optional(),
    OTEL_LOG_USER_PROMPTS: flag,
    OTEL_LOG_TOOL_DETAILS: flag,
  });
});

const isOn = (value: string | undefined) => value === "1" || value === "true";

/** `key1=value1,key2=value2` with percent-encoded values (the OTel format of headers and resource attributes). */
export function parseKeyValueList(text: string | undefined): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const item of (text ?? "").split(",")) {
    const at = item.indexOf("=");
    if (at <= 0) continue;
    const key = item.slice(0, at).trim();
    const raw = item.slice(at + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // Not percent-encoded after all: keep it as written.
    }
    if (key) pairs[key] = value;
  }
  return pairs;
}

/**
 * Telemetry is off unless `CAIRN_ENABLE_TELEMETRY` is on; then only the standard `OTEL_*` variables
 * configure it, with the specification's defaults (OTLP over http/protobuf to localhost:4318).
 * Throws a readable error for values that make no sense.
 */
export function telemetryConfigFromEnv(source: Readonly<Record<string, string | undefined>>): TelemetryConfig | undefined {
  const present = Object.fromEntries(
    Object.entries(source).filter(([key, value]) => (key.startsWith("OTEL_") || key === "CAIRN_ENABLE_TELEMETRY") && value !== undefined && value !== ""),
  );
  if (!isOn(present.CAIRN_ENABLE_TELEMETRY)) return undefined;
  const parsed = telemetryEnvSchema.safeParse(present);
  if (!parsed.success)
    throw new Error(`Invalid telemetry settings: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
  const env = parsed.data;
  const base = (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "http://localhost:4318").replace(/\/+$/, "");
  return {
    traces: env.OTEL_TRACES_EXPORTER,
    metrics: env.OTEL_METRICS_EXPORTER,
    logs: env.OTEL_LOGS_EXPORTER,
    protocol: env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf",
    urls: {
      traces: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`,
      metrics: env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ?? `${base}/v1/metrics`,
      logs: env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT ?? `${base}/v1/logs`,
    },
    headers: parseKeyValueList(env.OTEL_EXPORTER_OTLP_HEADERS),
    resourceAttributes: parseKeyValueList(env.OTEL_RESOURCE_ATTRIBUTES),
    metricExportIntervalMs: env.OTEL_METRIC_EXPORT_INTERVAL ?? 60_000,
    exportTimeoutMs: env.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000,
    logUserPrompts: isOn(env.OTEL_LOG_USER_PROMPTS),
    logToolDetails: isOn(env.OTEL_LOG_TOOL_DETAILS),
  };
}
