import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";
import { decodeOtlp, type OtlpSignal } from "./otlp-decode.ts";

const tempDir = useTempDirs();

// Telemetry against a real OTLP/HTTP receiver: `cairn -p` with CAIRN_ENABLE_TELEMETRY=1 exports
// through the real exporters; the receiver decodes what arrives (JSON, or protobuf with the OTLP
// protos) and the assertions read spans, metrics and log records from it.

type Received = { signal: OtlpSignal; contentType: string; body: Record<string, any> };

let sim: ModelSim;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  sim = await startModelSim();
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const signal = (request.url ?? "").replace("/v1/", "") as OtlpSignal;
      const contentType = request.headers["content-type"] ?? "";
      const bytes = Buffer.concat(chunks);
      received.push({ signal, contentType, body: decodeOtlp(signal, contentType, bytes) as Record<string, any> });
      response.writeHead(200, { "content-type": contentType });
      response.end(contentType.includes("json") ? "{}" : "");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sim.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const spansOf = (items: Received[]) =>
  items
    .filter((item) => item.signal === "traces")
    .flatMap((item) => item.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans)));
const metricsOf = (items: Received[]) =>
  items
    .filter((item) => item.signal === "metrics")
    .flatMap((item) => item.body.resourceMetrics.flatMap((rm: any) => rm.scopeMetrics.flatMap((sm: any) => sm.metrics)));
const logsOf = (items: Received[]) =>
  items
    .filter((item) => item.signal === "logs")
    .flatMap((item) => item.body.resourceLogs.flatMap((rl: any) => rl.scopeLogs.flatMap((sl: any) => sl.logRecords)));
const attr = (record: any, key: string) => {
  const value = record.attributes.find((attribute: any) => attribute.key === key)?.value;
  return value?.stringValue ?? value?.intValue ?? value?.doubleValue ?? value?.boolValue;
};

async function runWithTelemetry(protocol: "http/json" | "http/protobuf", extraEnv: Record<string, string> = {}) {
  const workspace = await tempDir("otel-ws");
  const cairnHome = await tempDir("otel-home");
  sim.setScenario({
    turns: [
      {
        content: [{ type: "tool_use", id: "toolu_w", name: "Write", input: { file_path: `${workspace}/a.txt`, content: "one\ntwo\n" } }],
        usage: { input_tokens: 120, output_tokens: 30 },
      },
      { content: [{ type: "text", text: "done" }], usage: { input_tokens: 200, output_tokens: 5 } },
    ],
  });
  const from = received.length;
  const result = await runCairn(["-p", "write a.txt with sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "--permission-mode", "acceptEdits"], {
    cwd: workspace,
    env: {
      ANTHROPIC_BASE_URL: sim.url,
      ANTHROPIC_API_KEY: "sk-ant-api03-secretsecretsecretsecretsecret",
      CAIRN_HOME: cairnHome,
      CAIRN_ENABLE_TELEMETRY: "1",
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
      OTEL_EXPORTER_OTLP_HEADERS: "x-team=core%20team",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=ci",
      OTEL_METRIC_EXPORT_INTERVAL: "60000",
      ...extraEnv,
    },
  });
  return { result, items: received.slice(from) };
}

describe.each(["http/json", "http/protobuf"] as const)("OpenTelemetry over %s", (protocol) => {
  it("exports nested spans, the cairn metrics and log events, and flushes at exit", async () => {
    const { result, items } = await runWithTelemetry(protocol, { OTEL_LOG_USER_PROMPTS: "1", OTEL_LOG_TOOL_DETAILS: "1" });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(items.every((item) => item.contentType.includes(protocol === "http/json" ? "json" : "protobuf"))).toBe(true);
    // A `cairn -p` run sends one batch per signal, at exit (the SDK loaded while the first request was answered).
    expect(items.map((item) => item.signal).sort()).toEqual(["logs", "metrics", "traces"]);

    const spans = spansOf(items);
    const turn = spans.find((span: any) => span.name === "cairn.turn");
    const requests = spans.filter((span: any) => span.name === "cairn.model_request");
    const tool = spans.find((span: any) => span.name === "cairn.tool Write");
    const hooks = spans.filter((span: any) => span.name.startsWith("cairn.hook"));
    expect(turn).toBeDefined();
    expect(requests).toHaveLength(2);
    for (const request of requests) expect(request.parentSpanId).toEqual(turn.spanId);
    // Recorded before the SDK had loaded, the turn keeps the time it really started.
    const nanos = (value: unknown) => BigInt(String(value));
    expect(nanos(turn.startTimeUnixNano) <= nanos(requests[0].startTimeUnixNano)).toBe(true);
    expect(nanos(requests[1].endTimeUnixNano) <= nanos(turn.endTimeUnixNano)).toBe(true);
    expect(attr(requests[0], "model")).toBeTruthy();
    expect(Number(attr(requests[0], "input_tokens"))).toBe(120);
    expect(tool.parentSpanId).toEqual(requests[0].spanId);
    expect(attr(tool, "decision.source")).toBe("config");
    expect(attr(tool, "success")).toBe(true);
    // The permission decision is exported through the same provider, as a child of its tool call.
    const permission = spans.find((span: any) => span.name === "cairn.permission");
    expect(permission.parentSpanId).toEqual(tool.spanId);
    expect([attr(permission, "permission.behavior"), attr(permission, "permission.reason"), attr(permission, "decision.source")]).toEqual([
      "allow",
      "mode",
      "config",
    ]);
    expect(hooks).toEqual([]);

    const metrics = metricsOf(items);
    const names = metrics.map((metric: any) => metric.name);
    for (const name of [
      "cairn.session.count",
      "cairn.token.usage",
      "cairn.cost.usage",
      "cairn.lines_of_code.count",
      "cairn.code_edit_tool.decision",
      "cairn.active_time.total",
    ]) {
      expect(names).toContain(name);
    }
    const tokens = metrics.find((metric: any) => metric.name === "cairn.token.usage").sum.dataPoints;
    const inputPoint = tokens.find((point: any) => attr(point, "type") === "input");
    expect(Number(inputPoint.asInt ?? inputPoint.asDouble)).toBe(320);
    const lines = metrics.find((metric: any) => metric.name === "cairn.lines_of_code.count").sum.dataPoints;
    expect(lines.map((point: any) => [attr(point, "type"), Number(point.asInt ?? point.asDouble)])).toEqual([["added", 2]]);

    const logs = logsOf(items);
    const events = logs.map((record: any) => attr(record, "event.name"));
    expect(events).toEqual(expect.arrayContaining(["cairn.user_prompt", "cairn.api_request", "cairn.tool_decision", "cairn.tool_result"]));
    const prompt = logs.find((record: any) => attr(record, "event.name") === "cairn.user_prompt");
    expect(attr(prompt, "prompt")).toContain("[REDACTED:");
    const toolResult = logs.find((record: any) => attr(record, "event.name") === "cairn.tool_result");
    expect(attr(toolResult, "tool_parameters")).toContain("one\\ntwo");
    const decision = logs.find((record: any) => attr(record, "event.name") === "cairn.tool_decision");
    expect([attr(decision, "decision"), attr(decision, "source")]).toEqual(["accept", "config"]);

    const resource = items[0]!.body[`resource${items[0]!.signal === "traces" ? "Spans" : items[0]!.signal === "metrics" ? "Metrics" : "Logs"}`][0].resource;
    expect(attr(resource, "deployment.environment")).toBe("ci");
    expect(attr(resource, "service.name")).toBe("cairn");
    // No secret leaves: not the API key, not the secret in the prompt.
    const everything = JSON.stringify(items.map((item) => item.body));
    expect(everything).not.toContain("secretsecret");
    expect(everything).not.toContain("abcdefghijklmnopqrstuvwxyz0123456789");
  });
});

describe("telemetry behaviour", () => {
  it("is off by default: nothing is exported", async () => {
    const from = received.length;
    const workspace = await tempDir("otel-off");
    sim.setScenario({ turns: [{ content: [{ type: "text", text: "hi" }] }] });
    const result = await runCairn(["-p", "hello"], {
      cwd: workspace,
      env: { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: await tempDir("otel-off-home"), OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl },
    });
    expect(result.code).toBe(0);
    expect(received.length).toBe(from);
  });

  it("without OTEL_LOG_USER_PROMPTS and OTEL_LOG_TOOL_DETAILS neither the prompt nor tool inputs are exported", async () => {
    const { result, items } = await runWithTelemetry("http/json");
    expect(result.code).toBe(0);
    const logs = logsOf(items);
    expect(logs.length).toBeGreaterThan(0);
    expect(JSON.stringify(logs)).not.toContain("write a.txt");
    expect(JSON.stringify(logs)).not.toContain("tool_parameters");
  });

  it("auto mode's classifier request counts in cairn.token.usage and cairn.cost.usage, marked by its query_source", async () => {
    const workspace = await tempDir("otel-auto");
    const classifierModel = "claude-haiku-5-5";
    sim.setScenario({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_b", name: "Bash", input: { command: "touch made.txt" } }], usage: { input_tokens: 100, output_tokens: 10 } },
        {
          match: { model: classifierModel },
          content: [{ type: "tool_use", name: "permission_verdict", input: { decision: "allow", reason: "the user asked for it" } }],
          usage: { input_tokens: 4_000, output_tokens: 25 },
        },
        { content: [{ type: "text", text: "done" }], usage: { input_tokens: 200, output_tokens: 5 } },
      ],
    });
    const from = received.length;
    // A generous classifier timeout: on a loaded machine the default 5 s can pass before the simulator answers.
    const result = await runCairn(["-p", "make the file", "--permission-mode", "auto", "--settings", JSON.stringify({ autoModeTimeoutMs: 60_000 })], {
      cwd: workspace,
      env: {
        ANTHROPIC_BASE_URL: sim.url,
        ANTHROPIC_API_KEY: "test",
        CAIRN_HOME: await tempDir("otel-auto-home"),
        CAIRN_ENABLE_TELEMETRY: "1",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("done\n");
    const metrics = metricsOf(received.slice(from));
    const points = (name: string) => metrics.filter((metric: any) => metric.name === name).flatMap((metric: any) => metric.sum.dataPoints);
    const value = (point: any) => Number(point.asInt ?? point.asDouble);
    const classifierTokens = points("cairn.token.usage").filter((point: any) => attr(point, "query_source") === "auto_mode_classifier");
    expect(classifierTokens.map((point: any) => [attr(point, "type"), attr(point, "model"), value(point)]).sort()).toEqual([
      ["input", classifierModel, 4_000],
      ["output", classifierModel, 25],
    ]);
    const mainInput = points("cairn.token.usage").find((point: any) => attr(point, "type") === "input" && attr(point, "query_source") === undefined);
    expect(value(mainInput)).toBe(300);
    const classifierCost = points("cairn.cost.usage").find((point: any) => attr(point, "query_source") === "auto_mode_classifier");
    expect(value(classifierCost)).toBeGreaterThan(0);
  });

  it("a wrong endpoint costs one warning and the run still succeeds", async () => {
    const workspace = await tempDir("otel-bad");
    sim.setScenario({ turns: [{ content: [{ type: "text", text: "still fine" }] }] });
    const result = await runCairn(["-p", "hello"], {
      cwd: workspace,
      env: {
        ANTHROPIC_BASE_URL: sim.url,
        ANTHROPIC_API_KEY: "test",
        CAIRN_HOME: await tempDir("otel-bad-home"),
        CAIRN_ENABLE_TELEMETRY: "1",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("still fine\n");
    expect(result.stderr.match(/cairn: telemetry: (could not export|the export to)/g)).toHaveLength(1);
  });
});
