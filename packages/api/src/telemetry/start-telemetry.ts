import { createNoopMeter, trace, type Meter } from "@opentelemetry/api";
import type { TelemetryConfig, TelemetryExporterKind } from "./telemetry-config.ts";
import type { Telemetry, TelemetryInstruments } from "./telemetry-port.ts";

export type TelemetryHandle = {
  telemetry: Telemetry;
  /** Exports what is buffered and stops; never waits longer than the export timeout (3 s at most). */
  shutdown(): Promise<void>;
};

type ExportCallback = (result: { code: number; error?: Error }) => void;
type Exporter<Item> = { export(items: Item, resultCallback: ExportCallback): void };

const SHUTDOWN_CAP_MS = 3_000;

/** Reports the first failed export only: a wrong endpoint costs the run one warning. */
function watchExports<Item, E extends Exporter<Item>>(exporter: E, onFailure: (error: Error | undefined) => void): E {
  const original = exporter.export.bind(exporter);
  exporter.export = (items: Item, resultCallback: ExportCallback) =>
    original(items, (result) => {
      if (result.code !== 0) onFailure(result.error);
      resultCallback(result);
    });
  return exporter;
}

function createInstruments(meter: Meter): TelemetryInstruments {
  return {
    sessionCount: meter.createCounter("cairn.session.count", { description: "Sessions started" }),
    tokenUsage: meter.createCounter("cairn.token.usage", { description: "Tokens used", unit: "tokens" }),
    costUsage: meter.createCounter("cairn.cost.usage", { description: "Estimated cost", unit: "USD" }),
    linesOfCode: meter.createCounter("cairn.lines_of_code.count", { description: "Lines of code added or removed" }),
    codeEditToolDecision: meter.createCounter("cairn.code_edit_tool.decision", { description: "Decisions on code edit tools" }),
    activeTime: meter.createCounter("cairn.active_time.total", { description: "Time the agent was working", unit: "s" }),
  };
}

const pick = (kinds: readonly TelemetryExporterKind[]) => ({ otlp: kinds.includes("otlp"), console: kinds.includes("console") });

/**
 * Starts the OpenTelemetry SDK (traces, metrics, logs) with OTLP/HTTP exporters in the configured
 * protocol. The SDK packages are loaded here, on demand, so runs without telemetry never load them.
 * Nothing is registered globally: the providers are reached only through the returned `Telemetry`.
 */
export async function startTelemetry(config: TelemetryConfig, options: { serviceVersion: string; warn: (message: string) => void }): Promise<TelemetryHandle> {
  const json = config.protocol === "http/json";
  const [{ resourceFromAttributes }, traceSdk, metricsSdk, logsSdk] = await Promise.all([
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/sdk-metrics"),
    import("@opentelemetry/sdk-logs"),
  ]);
  const resource = resourceFromAttributes({ "service.name": "cairn", "service.version": options.serviceVersion, ...config.resourceAttributes });
  let warned = false;
  const onFailure = (signal: string) => (error: Error | undefined) => {
    if (warned) return;
    warned = true;
    options.warn(
      `telemetry: could not export ${signal} to ${config.urls[signal as keyof TelemetryConfig["urls"]]}: ${error?.message ?? "unknown error"} (further export errors are not reported)`,
    );
  };
  const exporterOptions = (url: string) => ({ url, headers: config.headers, timeoutMillis: config.exportTimeoutMs });

  const shutdowns: Array<() => Promise<void>> = [];

  const traces = pick(config.traces);
  const spanProcessors: InstanceType<typeof traceSdk.BatchSpanProcessor>[] = [];
  if (traces.otlp) {
    const { OTLPTraceExporter } = json ? await import("@opentelemetry/exporter-trace-otlp-http") : await import("@opentelemetry/exporter-trace-otlp-proto");
    spanProcessors.push(new traceSdk.BatchSpanProcessor(watchExports(new OTLPTraceExporter(exporterOptions(config.urls.traces)), onFailure("traces"))));
  }
  if (traces.console) spanProcessors.push(new traceSdk.BatchSpanProcessor(new traceSdk.ConsoleSpanExporter()));
  let tracer = trace.getTracer("cairn");
  if (spanProcessors.length > 0) {
    const provider = new traceSdk.BasicTracerProvider({ resource, spanProcessors });
    tracer = provider.getTracer("cairn", options.serviceVersion);
    shutdowns.push(() => provider.shutdown());
  }

  const metrics = pick(config.metrics);
  const readers: InstanceType<typeof metricsSdk.PeriodicExportingMetricReader>[] = [];
  const reader = (exporter: ConstructorParameters<typeof metricsSdk.PeriodicExportingMetricReader>[0]["exporter"]) =>
    new metricsSdk.PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: config.metricExportIntervalMs,
      exportTimeoutMillis: Math.min(config.exportTimeoutMs, config.metricExportIntervalMs),
    });
  if (metrics.otlp) {
    const { OTLPMetricExporter } = json
      ? await import("@opentelemetry/exporter-metrics-otlp-http")
      : await import("@opentelemetry/exporter-metrics-otlp-proto");
    readers.push(reader(watchExports(new OTLPMetricExporter(exporterOptions(config.urls.metrics)), onFailure("metrics"))));
  }
  if (metrics.console) readers.push(reader(new metricsSdk.ConsoleMetricExporter()));
  let meter = createNoopMeter();
  if (readers.length > 0) {
    const provider = new metricsSdk.MeterProvider({ resource, readers });
    meter = provider.getMeter("cairn", options.serviceVersion);
    shutdowns.push(() => provider.shutdown());
  }

  const logs = pick(config.logs);
  const processors: InstanceType<typeof logsSdk.BatchLogRecordProcessor>[] = [];
  if (logs.otlp) {
    const { OTLPLogExporter } = json ? await import("@opentelemetry/exporter-logs-otlp-http") : await import("@opentelemetry/exporter-logs-otlp-proto");
    processors.push(new logsSdk.BatchLogRecordProcessor({ exporter: watchExports(new OTLPLogExporter(exporterOptions(config.urls.logs)), onFailure("logs")) }));
  }
  if (logs.console) processors.push(new logsSdk.BatchLogRecordProcessor({ exporter: new logsSdk.ConsoleLogRecordExporter() }));
  let emit: Telemetry["emit"] = () => undefined;
  if (processors.length > 0) {
    const provider = new logsSdk.LoggerProvider({ resource, processors });
    const logger = provider.getLogger("cairn", options.serviceVersion);
    emit = (name, attributes) =>
      logger.emit({ eventName: name, body: name, attributes: { "event.name": name, "event.timestamp": new Date().toISOString(), ...attributes } });
    shutdowns.push(() => provider.shutdown());
  }

  return {
    telemetry: { tracer, instruments: createInstruments(meter), emit, logUserPrompts: config.logUserPrompts, logToolDetails: config.logToolDetails },
    async shutdown() {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waitMs = Math.min(config.exportTimeoutMs, SHUTDOWN_CAP_MS);
      const deadline = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), waitMs);
        timer.unref?.();
      });
      try {
        const settled = await Promise.race([Promise.allSettled(shutdowns.map((shutdown) => shutdown())), deadline]);
        // An endpoint that never answers (or one the exporter keeps retrying) still costs one warning.
        if (settled === "late" && !warned) {
          warned = true;
          options.warn(`telemetry: the export to ${new URL(config.urls.traces).origin} did not finish within ${waitMs / 1000} s; some telemetry was not sent`);
        }
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
