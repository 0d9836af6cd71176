import { estimateCostUsd } from "../model/pricing.ts";
import type { PermissionDecisionRecord } from "../schema/permissions.ts";
import { asArray, asNumber, asRecord, asString, contentText, oneLine, TOOL_OUTPUT, type LooseRecord } from "./line-fields.ts";
import type { PendingTool, Push, TimelineDraft } from "./thread-reader.ts";
import type { TimelineDetail, TimelineEvent, TimelineStatus } from "./types.ts";

/** A user line: a prompt, or tool results joined to their calls (and to Cairn's `toolCall` timing record). */
export function readUserLine(
  line: LooseRecord,
  at: number,
  key: string,
  uuid: string | null,
  agentId: string | null,
  draft: TimelineDraft,
  pending: Map<string, PendingTool>,
  push: Push,
  mainLane: (fallback: string) => string,
  tombstoned: boolean,
): void {
  const content = asRecord(line.message)?.content;
  const blocks = asArray(content);
  const results: LooseRecord[] = [];
  for (const item of blocks) {
    const block = asRecord(item);
    if (block?.type === "tool_result") results.push(block);
  }
  if (results.length === 0) {
    if (line.isMeta === true) return;
    const text = contentText(content);
    if (text === "") return;
    push({
      id: `prompt:${key}`,
      kind: "prompt",
      lane: mainLane("model"),
      at,
      title: agentId === null ? "Prompt" : "Agent prompt",
      status: tombstoned ? "tombstoned" : "ok",
      lineUuid: uuid,
      detail: { kind: "prompt", text },
    });
    return;
  }
  const record = asRecord(line.toolCall);
  const structured = asRecord(line.toolUseResult);
  for (const block of results) {
    const toolUseId = asString(block.tool_use_id) ?? `${key}:result`;
    const call = pending.get(toolUseId);
    pending.delete(toolUseId);
    const ownRecord = record && (asString(record.toolUseId) ?? toolUseId) === toolUseId ? record : undefined;
    const name = call?.name ?? asString(ownRecord?.name) ?? "unknown tool";
    const output = contentText(block.content, TOOL_OUTPUT);
    const isError = block.is_error === true || ownRecord?.isError === true;
    const spawnedAgentId = name === "Agent" || name === "Task" ? (asString(structured?.agentId) ?? null) : null;
    if (spawnedAgentId && agentId === null) draft.spawned.set(spawnedAgentId, asString(asRecord(call?.input)?.description) ?? "");
    const detail = toolDetail(toolUseId, name, call?.input, { output, isError, spawnedAgentId });
    const timing = ownRecord ? applyRecord(detail, ownRecord) : undefined;
    if (timing) draft.timed = true;
    const denied = detail.decision?.behavior === "deny" || detail.errorClass === "PermissionDenied" || detail.errorClass === "HookBlocked";
    const status: TimelineStatus = tombstoned || call?.tombstoned ? "tombstoned" : denied ? "denied" : isError ? "error" : "ok";
    const tool = push({
      id: `tool:${toolUseId}`,
      kind: "tool",
      lane: mainLane("tools"),
      at: call?.at ?? at,
      ...(timing ? { start: timing.start, end: timing.end } : {}),
      title: name,
      status,
      toolName: name,
      lineUuid: uuid,
      detail,
    });
    if (ownRecord && timing) pushCallParts(ownRecord, detail, tool, push);
  }
}

export function toolDetail(
  toolUseId: string,
  name: string,
  input: unknown,
  result: { output: string; isError: boolean; spawnedAgentId?: string | null },
): Extract<TimelineDetail, { kind: "tool" }> {
  return {
    kind: "tool",
    toolUseId,
    name,
    input,
    output: result.output,
    isError: result.isError,
    errorClass: null,
    batch: null,
    decision: null,
    permissionWaitMs: 0,
    runStart: null,
    waitStart: null,
    waitEnd: null,
    spawnedAgentId: result.spawnedAgentId ?? null,
  };
}

/** Fills the detail from a Cairn `toolCall` record; returns the call's extent when its times are sane. */
function applyRecord(detail: Extract<TimelineDetail, { kind: "tool" }>, record: LooseRecord): { start: number; end: number } | undefined {
  detail.errorClass = asString(record.errorClass) ?? null;
  detail.batch = asNumber(record.batch) ?? null;
  const decision = asRecord(record.decision);
  const reason = asRecord(decision?.reason);
  const wellFormed = decision && (decision.behavior === "allow" || decision.behavior === "deny") && typeof reason?.type === "string";
  detail.decision = wellFormed ? (decision as unknown as PermissionDecisionRecord) : null;
  const start = asNumber(record.startedAt);
  const end = asNumber(record.endedAt);
  if (start === undefined || end === undefined || end < start) return undefined;
  const waitMs = Math.min(Math.max(0, asNumber(record.permissionWaitMs) ?? 0), end - start);
  detail.permissionWaitMs = waitMs;
  // The wait follows the PreToolUse hooks; without them it starts with the call.
  let preHooksEnd = start;
  for (const hook of asArray(record.hooks)) {
    const run = asRecord(hook);
    const hookEnd = asNumber(run?.endedAt);
    if (run?.event === "PreToolUse" && hookEnd !== undefined && hookEnd > preHooksEnd && hookEnd <= end) preHooksEnd = hookEnd;
  }
  const waitStart = Math.min(preHooksEnd, end - waitMs);
  detail.runStart = waitStart + waitMs;
  if (waitMs > 0 || decision?.asked === true) {
    detail.waitStart = waitStart;
    detail.waitEnd = waitStart + waitMs;
  }
  return { start, end };
}

/** The permission wait and the hooks of a timed call, as events of their own lanes. */
function pushCallParts(record: LooseRecord, detail: Extract<TimelineDetail, { kind: "tool" }>, tool: TimelineEvent, push: Push): void {
  if (detail.waitStart !== null && detail.waitEnd !== null) {
    const who = detail.decision ? `${detail.decision.behavior} (${detail.decision.reason.type})` : "";
    push({
      id: `wait:${detail.toolUseId}`,
      kind: "permission",
      lane: "permission",
      at: detail.waitStart,
      start: detail.waitStart,
      end: detail.waitEnd,
      title: `Permission: ${detail.name}`,
      summary: `waited ${Math.round(detail.permissionWaitMs)} ms ${who}`.trim(),
      status: detail.decision?.behavior === "deny" ? "denied" : "ok",
      toolName: detail.name,
      lineUuid: tool.lineUuid,
      detail: { kind: "permission", toolUseId: detail.toolUseId, toolName: detail.name, waitMs: detail.permissionWaitMs, decision: detail.decision },
    });
  }
  pushClassifierRequest(record, detail, tool, push);
  asArray(record.hooks).forEach((hook, position) => {
    const run = asRecord(hook);
    const start = asNumber(run?.startedAt);
    const end = asNumber(run?.endedAt);
    if (!run || start === undefined || end === undefined || end < start) return;
    const event = asString(run.event) ?? "hook";
    const name = asString(run.name) ?? "";
    const outcome = asString(run.outcome) ?? "";
    push({
      id: `hook:${detail.toolUseId}:${position}`,
      kind: "hook",
      lane: "hooks",
      at: start,
      start,
      end,
      title: `${event}: ${oneLine(name, 60)}`,
      summary: `${detail.name} · ${outcome}`,
      status: outcome === "blocked" ? "denied" : outcome === "ok" ? "ok" : "error",
      toolName: detail.name,
      lineUuid: tool.lineUuid,
      detail: { kind: "hook", event, name, outcome, toolUseId: detail.toolUseId },
    });
  });
}

/** Auto mode's classifier request for the call (its own model call, with tokens and cost), beside the permission wait. */
function pushClassifierRequest(record: LooseRecord, detail: Extract<TimelineDetail, { kind: "tool" }>, tool: TimelineEvent, push: Push): void {
  const request = asRecord(record.classifierRequest);
  const start = asNumber(request?.startedAt);
  const end = asNumber(request?.endedAt);
  if (!request || start === undefined || end === undefined || end < start) return;
  const model = asString(request.model) ?? "unknown model";
  const usage = asRecord(request.usage);
  const tokens = usage
    ? {
        input: asNumber(usage.input_tokens) ?? 0,
        output: asNumber(usage.output_tokens) ?? 0,
        cacheRead: asNumber(usage.cache_read_input_tokens) ?? 0,
        cacheWrite: asNumber(usage.cache_creation_input_tokens) ?? 0,
      }
    : null;
  const costUsd = tokens
    ? estimateCostUsd(model, {
        inputTokens: tokens.input,
        outputTokens: tokens.output,
        cacheReadInputTokens: tokens.cacheRead,
        cacheCreationInputTokens: tokens.cacheWrite,
      })
    : 0;
  const failure = asString(request.failure) ?? null;
  push({
    id: `classifier:${detail.toolUseId}`,
    kind: "classifier",
    lane: "permission",
    at: start,
    start,
    end,
    title: `Classifier: ${detail.name}`,
    status: failure ? "error" : "ok",
    toolName: detail.name,
    lineUuid: tool.lineUuid,
    detail: { kind: "classifier", toolUseId: detail.toolUseId, toolName: detail.name, model, durationMs: end - start, tokens, costUsd, failure },
  });
}
