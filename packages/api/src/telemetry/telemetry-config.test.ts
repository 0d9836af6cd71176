import { describe, expect, it } from "vitest";
import { parseKeyValueList, telemetryConfigFromEnv } from "./telemetry-config.ts";

describe("telemetryConfigFromEnv", () => {
  it("is off unless CAIRN_ENABLE_TELEMETRY is on", () => {
    expect(telemetryConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBeUndefined();
    expect(telemetryConfigFromEnv({ CAIRN_ENABLE_TELEMETRY: "0" })).toBeUndefined();
  });

  it("uses the specification's defaults", () => {
    expect(telemetryConfigFromEnv({ CAIRN_ENABLE_TELEMETRY: "1" })).toEqual({
      traces: ["otlp"],
      metrics: ["otlp"],
      logs: ["otlp"],
      protocol: "http/protobuf",
      urls: { traces: "http://localhost:4318/v1/traces", metrics: "http://localhost:4318/v1/metrics", logs: "http://localhost:4318/v1/logs" },
      headers: {},
      resourceAttributes: {},
      metricExportIntervalMs: 60_000,
      exportTimeoutMs: 10_000,
      logUserPrompts: false,
      logToolDetails: false,
    });
  });

  it("reads the standard OTEL_* variables", () => {
    const config = telemetryConfigFromEnv({
      CAIRN_ENABLE_TELEMETRY: "true",
      OTEL_TRACES_EXPORTER: "none",
      OTEL_METRICS_EXPORTER: "otlp,console",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://collector.example:4318/",
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: "https://logs.example/ingest",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc,x-team=core",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod,team=infra",
      OTEL_METRIC_EXPORT_INTERVAL: "5000",
      OTEL_LOG_USER_PROMPTS: "1",
    });
    expect(config).toMatchObject({
      traces: [],
      metrics: ["otlp", "console"],
      protocol: "http/json",
      urls: { traces: "https://collector.example:4318/v1/traces", logs: "https://logs.example/ingest" },
      headers: { authorization: "Bearer abc", "x-team": "core" },
      resourceAttributes: { "deployment.environment": "prod", team: "infra" },
      metricExportIntervalMs: 5000,
      logUserPrompts: true,
      logToolDetails: false,
    });
  });

  it("refuses values that make no sense, saying which", () => {
    expect(() => telemetryConfigFromEnv({ CAIRN_ENABLE_TELEMETRY: "1", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(() => telemetryConfigFromEnv({ CAIRN_ENABLE_TELEMETRY: "1", OTEL_TRACES_EXPORTER: "zipkin" })).toThrow(/unsupported exporter zipkin/);
  });

  it("parses key=value lists leniently", () => {
    expect(parseKeyValueList(" a = 1 ,broken,=x,b=%ZZ")).toEqual({ a: "1", b: "%ZZ" });
  });
});
