import { context as otelContext, SpanStatusCode, trace, type Attributes, type Context } from "@opentelemetry/api";
import { decisionReasonToOTelSource, estimateCostUsd, type AgentEvent } from "@cairn/core";
import { addUsage, emptyUsageTotals, type HookRunRecord, type Usage } from "@cairn/core/schema";
import { createRedactor } from "../share/redact.ts";
import type { Telemetry } from "./telemetry-port.ts";

const EDIT_TOOLS = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"]);
/** The `query_source` attribute of token and cost figures that auto mode's permission classifier spent. */
const CLASSIFIER_QUERY_SOURCE = "auto_mode_classifier";
const MAX_ATTRIBUTE_CHARS = 4_000;

export type TurnTelemetry = {
  /** Every event of the turn, in order, with the time it happened (now by default); the `result` event ends the turn's span. */
  observe(event: AgentEvent, at?: number): void;
};

export type SessionTelemetry = {
  /** Counts the session (once per session per process). */
  started(): void;
  /** A user prompt, given at `at` (now by default): a span for the turn, the `cairn.user_prompt` event. */
  turn(prompt: string, at?: number): TurnTelemetry;
};

type Patch = { lines?: unknown };

/** Lines added and removed by an Edit/Write result (its `structuredPatch`, as Claude Code stores it). */
function patchLineCounts(output: unknown): { added: number; removed: number } {
  const counts = { added: 0, removed: 0 };
  if (typeof output !== "object" || output === null) return counts;
  const result = output as { type?: unknown; content?: unknown; structuredPatch?: unknown };
  // A new file has no patch: every line of it is added.
  if (result.type === "create" && typeof result.content === "string") {
    counts.added = result.content === "" ? 0 : result.content.replace(/\n$/, "").split("\n").length;
    return counts;
  }
  const patch = result.structuredPatch;
  if (!Array.isArray(patch)) return counts;
  for (const hunk of patch as Patch[]) {
    if (!Array.isArray(hunk.lines)) continue;
    for (const line of hunk.lines) {
      if (typeof line !== "string") continue;
      if (line.startsWith("+")) counts.added++;
      else if (line.startsWith("-")) counts.removed++;
    }
  }
  return counts;
}

/**
 * Turns a session's agent events into OpenTelemetry data: a span per turn with a child per model
 * request, a child of that per tool call and a child of that per hook run; the `cairn.*` metrics;
 * and the `cairn.*` log events. Texts that could carry secrets (hook commands, errors, and the
 * prompt and tool inputs when they are exported at all) go through the share redactor first.
 */
export function createSessionTelemetry(telemetry: Telemetry, session: { sessionId: string }): SessionTelemetry {
  const redactor = createRedactor();
  const clean = (text: string) => {
    const redacted = redactor.redactText(text).text;
    return redacted.length > MAX_ATTRIBUTE_CHARS ? `${redacted.slice(0, MAX_ATTRIBUTE_CHARS)}…` : redacted;
  };
  const common: Attributes = { "session.id": session.sessionId };
  const { tracer, instruments } = telemetry;

  const hookSpans = (runs: readonly HookRunRecord[], parent: Context) => {
    for (const run of runs) {
      const span = tracer.startSpan(
        `cairn.hook ${run.event}`,
        { startTime: run.startedAt, attributes: { ...common, "hook.event": run.event, "hook.name": clean(run.name), "hook.outcome": run.outcome } },
        parent,
      );
      if (run.outcome !== "ok") span.setStatus({ code: SpanStatusCode.ERROR, message: run.outcome });
      span.end(run.endedAt);
    }
  };

  return {
    started() {
      instruments.sessionCount.add(1, common);
    },
    turn(prompt, at = Date.now()) {
      const turnStartedAt = at;
      const turnSpan = tracer.startSpan("cairn.turn", { startTime: turnStartedAt, attributes: { ...common, "prompt.length": prompt.length } });
      const turnContext = trace.setSpan(otelContext.active(), turnSpan);
      let requestContext: Context = turnContext;
      let retries = 0;
      const inputs = new Map<string, unknown>();
      /** Each call's permission decision, kept until its tool span exists to hold it. */
      const decisions = new Map<string, { decidedAt: number; event: Extract<AgentEvent, { type: "permission-decision" }> }>();
      telemetry.emit("cairn.user_prompt", { ...common, prompt_length: prompt.length, ...(telemetry.logUserPrompts ? { prompt: clean(prompt) } : {}) }, at);
      let ended = false;

      /** `cairn.token.usage` by type and `cairn.cost.usage` of one model request; its cost. */
      const countUsage = (model: string, usage: Usage | undefined, extra: Attributes = {}) => {
        const totals = addUsage(emptyUsageTotals(), usage);
        const cost = estimateCostUsd(model, totals);
        for (const [type, value] of [
          ["input", totals.inputTokens],
          ["output", totals.outputTokens],
          ["cacheRead", totals.cacheReadInputTokens],
          ["cacheCreation", totals.cacheCreationInputTokens],
        ] as const) {
          if (value > 0) instruments.tokenUsage.add(value, { ...common, ...extra, type, model });
        }
        instruments.costUsage.add(cost, { ...common, ...extra, model });
        return { totals, cost };
      };

      const modelRequest = (event: Extract<AgentEvent, { type: "message" }>, at: number) => {
        const message = event.message;
        if (message.type !== "assistant" || !message.modelCall) return;
        const call = message.modelCall;
        const model = message.message.model || call.model;
        const { totals, cost } = countUsage(model, message.message.usage);
        const ttftMs = call.firstTokenAt === null ? undefined : call.firstTokenAt - call.startedAt;
        const attributes: Attributes = {
          ...common,
          model,
          input_tokens: totals.inputTokens,
          output_tokens: totals.outputTokens,
          cache_read_tokens: totals.cacheReadInputTokens,
          cache_creation_tokens: totals.cacheCreationInputTokens,
          duration_ms: call.endedAt - call.startedAt,
          attempts: call.attempts,
          retries: Math.max(retries, call.attempts - 1),
          ...(ttftMs === undefined ? {} : { ttft_ms: ttftMs }),
        };
        const span = tracer.startSpan("cairn.model_request", { startTime: call.startedAt, attributes }, turnContext);
        span.end(call.endedAt);
        requestContext = trace.setSpan(turnContext, span);
        retries = 0;
        telemetry.emit("cairn.api_request", { ...attributes, cost_usd: cost }, at);
      };

      const toolResult = (event: Extract<AgentEvent, { type: "message" }>) => {
        const message = event.message;
        if (message.type !== "user" || !message.toolCall) return;
        const record = message.toolCall;
        if (!record.isError && EDIT_TOOLS.has(record.name)) {
          const { added, removed } = patchLineCounts(message.toolUseResult);
          if (added > 0) instruments.linesOfCode.add(added, { ...common, type: "added" });
          if (removed > 0) instruments.linesOfCode.add(removed, { ...common, type: "removed" });
        }
      };

      /** The decision as a child of the tool span, lasting as long as the wait for it (a person answering, or a hook). */
      const permissionSpan = (record: Extract<AgentEvent, { type: "tool-end" }>["record"], parent: Context) => {
        const decided = decisions.get(record.toolUseId);
        decisions.delete(record.toolUseId);
        if (!decided) return;
        const { event, decidedAt } = decided;
        const reason = event.reason;
        const attributes: Attributes = {
          ...common,
          tool_name: event.toolName,
          "permission.behavior": event.behavior,
          "permission.reason": reason.type,
          "decision.source": decisionReasonToOTelSource(reason, event.behavior),
          wait_ms: event.waitedMs,
          ...(reason.type === "rule" ? { "permission.rule": reason.rule, "permission.rule_source": reason.source } : {}),
        };
        const startTime = Math.max(record.startedAt, decidedAt - event.waitedMs);
        tracer.startSpan("cairn.permission", { startTime, attributes }, parent).end(Math.max(startTime, decidedAt));
      };

      const toolEnd = (record: Extract<AgentEvent, { type: "tool-end" }>["record"], at: number) => {
        const source = record.decision ? decisionReasonToOTelSource(record.decision.reason, record.decision.behavior) : undefined;
        const attributes: Attributes = {
          ...common,
          tool_name: record.name,
          duration_ms: record.durationMs,
          success: !record.isError,
          permission_wait_ms: record.permissionWaitMs,
          ...(source ? { "decision.source": source, decision: record.decision!.behavior } : {}),
          ...(record.errorClass ? { "error.class": record.errorClass } : {}),
        };
        // Auto mode's classifier request for this call (a fresh verdict, or one that failed or timed out after the API
        // reported its usage) is a model request of its own: its tokens and cost count, marked by where they came from.
        const classifier = record.classifierRequest;
        if (classifier?.usage) countUsage(classifier.model, classifier.usage, { query_source: CLASSIFIER_QUERY_SOURCE });
        const span = tracer.startSpan(`cairn.tool ${record.name}`, { startTime: record.startedAt, attributes }, requestContext);
        if (record.isError) span.setStatus({ code: SpanStatusCode.ERROR, ...(record.errorClass ? { message: record.errorClass } : {}) });
        const toolContext = trace.setSpan(requestContext, span);
        permissionSpan(record, toolContext);
        hookSpans(record.hooks ?? [], toolContext);
        span.end(record.endedAt);
        const input = inputs.get(record.toolUseId);
        telemetry.emit(
          "cairn.tool_result",
          { ...attributes, ...(telemetry.logToolDetails && input !== undefined ? { tool_parameters: clean(JSON.stringify(input)) } : {}) },
          at,
        );
      };

      return {
        observe(event, at = Date.now()) {
          if (ended) return;
          switch (event.type) {
            case "retry":
              retries++;
              return;
            case "message":
              modelRequest(event, at);
              toolResult(event);
              return;
            case "tool-start":
              if (telemetry.logToolDetails) inputs.set(event.toolUseId, event.input);
              return;
            case "permission-decision": {
              decisions.set(event.toolUseId, { decidedAt: at, event });
              const source = decisionReasonToOTelSource(event.reason, event.behavior);
              const decision = event.behavior === "allow" ? "accept" : "reject";
              telemetry.emit("cairn.tool_decision", { ...common, tool_name: event.toolName, decision, source }, at);
              if (EDIT_TOOLS.has(event.toolName)) instruments.codeEditToolDecision.add(1, { ...common, tool: event.toolName, decision, source });
              return;
            }
            case "tool-end":
              toolEnd(event.record, at);
              return;
            case "hook-runs":
              hookSpans(event.runs, turnContext);
              return;
            case "error":
              telemetry.emit(
                "cairn.api_error",
                { ...common, error: clean(event.message), "error.code": event.code, ...(event.status === null ? {} : { status_code: event.status }) },
                at,
              );
              return;
            case "result": {
              ended = true;
              const endedAt = at;
              instruments.activeTime.add((endedAt - turnStartedAt) / 1000, common);
              turnSpan.setAttributes({ "turn.reason": event.terminal.reason, "turn.model_requests": event.numTurns });
              if (event.terminal.reason === "model_error")
                turnSpan.setStatus({ code: SpanStatusCode.ERROR, message: event.terminal.error?.code ?? "model_error" });
              turnSpan.end(endedAt);
              return;
            }
            default:
              return;
          }
        },
      };
    },
  };
}
