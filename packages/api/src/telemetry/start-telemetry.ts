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

const wantsConsole = (kinds: readonly TelemetryExporterKind[]) => kinds.includes("console");

export type StartTelemetryOptions = {
  serviceVersion: string;
  warn: (message: string) => void;
  /**
   * How long finished spans and log records wait before a batch is sent (the SDK's defaults, 5 s and 1 s, when
   * absent). A short-lived `cairn -p` run passes a long delay, so it sends one batch per signal, at exit; a full
   * batch (512 items) still goes out at once.
   */
  batchDelayMs?: number;
};

/** Only the exporter modules a configuration uses: the protobuf and JSON variants are separate packages. */
function loadExporters(config: TelemetryConfig) {
  const json = config.protocol === "http/json";
  const wanted = (kinds: readonly TelemetryExporterKind[]) => kinds.includes("otlp");
  return Promise.all([
    wanted(config.traces) ? (json ? import("@opentelemetry/exporter-trace-otlp-http") : import("@opentelemetry/exporter-trace-otlp-proto")) : undefined,
    wanted(config.metrics) ? (json ? import("@opentelemetry/exporter-metrics-otlp-http") : import("@opentelemetry/exporter-metrics-otlp-proto")) : undefined,
    wanted(config.logs) ? (json ? import("@opentelemetry/exporter-logs-otlp-http") : import("@opentelemetry/exporter-logs-otlp-proto")) : undefined,
  ]);
}

/**
 * Starts the OpenTelemetry SDK (traces, metrics, logs) with OTLP/HTTP exporters in the configured
 * protocol. The SDK packages are loaded here, on demand and all at once, so runs without telemetry never load them.
 * Nothing is registered globally: the providers are reached only through the returned `Telemetry`.
 */
export async function startTelemetry(config: TelemetryConfig, options: StartTelemetryOptions): Promise<TelemetryHandle> {
  const [{ resourceFromAttributes }, traceSdk, metricsSdk, logsSdk, [traceExporter, metricExporter, logExporter]] = await Promise.all([
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/sdk-metrics"),
    import("@opentelemetry/sdk-logs"),
    loadExporters(config),
  ]);
  const batching = options.batchDelayMs === undefined ? {} : { scheduledDelayMillis: options.batchDelayMs };
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

  const spanProcessors: InstanceType<typeof traceSdk.BatchSpanProcessor>[] = [];
  if (traceExporter) {
    const exporter = watchExports(new traceExporter.OTLPTraceExporter(exporterOptions(config.urls.traces)), onFailure("traces"));
    spanProcessors.push(new traceSdk.BatchSpanProcessor(exporter, batching));
  }
  if (wantsConsole(config.traces)) spanProcessors.push(new traceSdk.BatchSpanProcessor(new traceSdk.ConsoleSpanExporter(), batching));
  let tracer = trace.getTracer("cairn");
  if (spanProcessors.length > 0) {
    const provider = new traceSdk.BasicTracerProvider({ resource, spanProcessors });
    tracer = provider.getTracer("cairn", options.serviceVersion);
    shutdowns.push(() => provider.shutdown());
  }

  const readers: InstanceType<typeof metricsSdk.PeriodicExportingMetricReader>[] = [];
  const reader = (exporter: ConstructorParameters<typeof metricsSdk.PeriodicExportingMetricReader>[0]["exporter"]) =>
    new metricsSdk.PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: config.metricExportIntervalMs,
      exportTimeoutMillis: Math.min(config.exportTimeoutMs, config.metricExportIntervalMs),
    });
  if (metricExporter) readers.push(reader(watchExports(new metricExporter.OTLPMetricExporter(exporterOptions(config.urls.metrics)), onFailure("metrics"))));
  if (wantsConsole(config.metrics)) readers.push(reader(new metricsSdk.ConsoleMetricExporter()));
  let meter = createNoopMeter();
  if (readers.length > 0) {
    const provider = new metricsSdk.MeterProvider({ resource, readers });
    meter = provider.getMeter("cairn", options.serviceVersion);
    shutdowns.push(() => provider.shutdown());
  }

  const processors: InstanceType<typeof logsSdk.BatchLogRecordProcessor>[] = [];
  if (logExporter) {
    const exporter = watchExports(new logExporter.OTLPLogExporter(exporterOptions(config.urls.logs)), onFailure("logs"));
    processors.push(new logsSdk.BatchLogRecordProcessor({ exporter, ...batching }));
  }
  if (wantsConsole(config.logs)) processors.push(new logsSdk.BatchLogRecordProcessor({ exporter: new logsSdk.ConsoleLogRecordExporter(), ...batching }));
  let emit: Telemetry["emit"] = () => undefined;
  if (processors.length > 0) {
    const provider = new logsSdk.LoggerProvider({ resource, processors });
    const logger = provider.getLogger("cairn", options.serviceVersion);
    emit = (name, attributes, at = Date.now()) =>
      logger.emit({
        eventName: name,
        body: name,
        timestamp: at,
        attributes: { "event.name": name, "event.timestamp": new Date(at).toISOString(), ...attributes },
      });
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
