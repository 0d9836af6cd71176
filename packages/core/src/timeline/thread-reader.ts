import { asArray, asNumber, asRecord, asString, contentText, oneLine, SUMMARY_CHARS, timestampMs, type LooseRecord } from "./line-fields.ts";
import { readAssistantLine } from "./model-events.ts";
import { readUserLine, toolDetail } from "./tool-events.ts";
import { TimelineEventRecord, type TimelineEventFields } from "./timeline-event.ts";
import type { TimelineDetail, TimelineEvent } from "./types.ts";

/** What all threads (the main one and each sidechain) add to. */
export type TimelineDraft = {
  events: TimelineEventRecord[];
  /** Uuids and message ids named by tombstone lines, in any thread. */
  tombstoned: ReadonlySet<string>;
  /** Agent ids the main thread's Agent calls ran, with their descriptions. */
  spawned: Map<string, string>;
  /** Whether any model or tool call recorded its timing. */
  timed: boolean;
};

export type PendingTool = { name: string; input: unknown; at: number; lineUuid: string | null; tombstoned: boolean };

export type Push = (fields: TimelineEventFields) => TimelineEvent;

export type ModelDraft = { event: TimelineEvent; detail: Extract<TimelineDetail, { kind: "model" }> };

/** Every tombstone target of the source, found before the events so a line written before its tombstone is marked. */
export function tombstoneTargets(threads: readonly (readonly unknown[])[]): Set<string> {
  const targets = new Set<string>();
  for (const lines of threads) {
    for (const line of lines) {
      const record = asRecord(line);
      if (record?.type !== "tombstone") continue;
      const target = asString(record.tombstoneOf);
      if (target) targets.add(target);
    }
  }
  return targets;
}

/**
 * One pass over one thread's lines, in file order: model calls (one per response, whatever number
 * of lines it was stored in), tool calls joined to their results by id in a map, hooks, permission
 * waits, compactions, prompts, notices and tombstones. Lanes, rows and order are decided later.
 */
export function readThread(lines: readonly unknown[], agentId: string | null, draft: TimelineDraft): void {
  const mainLane = (fallback: string) => (agentId === null ? fallback : `agent:${agentId}`);
  const responses: ModelDraft[] = [];
  const pending = new Map<string, PendingTool>();
  let lastAt = 0;
  let lastCompaction: Extract<TimelineDetail, { kind: "compaction" }> | undefined;

  const push: Push = (fields) => {
    const event = new TimelineEventRecord(fields, agentId);
    draft.events.push(event);
    return event;
  };

  const isTombstoned = (key: string | null | undefined) => key !== null && key !== undefined && draft.tombstoned.has(key);

  for (let position = 0; position < lines.length; position++) {
    const line = asRecord(lines[position]);
    if (!line) continue;
    const at = timestampMs(line.timestamp) ?? lastAt;
    lastAt = at;
    const uuid = asString(line.uuid) ?? null;
    const key = uuid ?? `${agentId ?? "main"}#${position}`;
    switch (line.type) {
      case "tombstone": {
        const target = asString(line.tombstoneOf) ?? "";
        const reason = asString(line.reason) ?? "";
        push({
          id: `tombstone:${key}:${target}`,
          kind: "tombstone",
          lane: "errors",
          at,
          title: "Tombstone",
          summary: `${target}: ${reason}`,
          status: "tombstoned",
          detail: { kind: "tombstone", target, reason },
        });
        break;
      }
      case "cairn-hooks":
        readHookRunsLine(line, key, uuid, push, mainLane);
        break;
      case "system":
        lastCompaction = readSystemLine(line, at, key, uuid, push, mainLane) ?? lastCompaction;
        break;
      case "user":
        if (line.isCompactSummary === true && lastCompaction && lastCompaction.summary === null) {
          lastCompaction.summary = contentText(asRecord(line.message)?.content);
          break;
        }
        readUserLine(line, at, key, uuid, agentId, draft, pending, push, mainLane, isTombstoned(uuid));
        break;
      case "assistant":
        readAssistantLine(line, at, key, uuid, responses, pending, push, mainLane, isTombstoned, draft);
        break;
      default:
        break;
    }
  }
  for (const [toolUseId, tool] of pending) {
    push({
      id: `tool:${toolUseId}`,
      kind: "tool",
      lane: mainLane("tools"),
      at: tool.at,
      title: tool.name,
      status: tool.tombstoned ? "tombstoned" : "unfinished",
      toolName: tool.name,
      lineUuid: tool.lineUuid,
      detail: toolDetail(toolUseId, tool.name, tool.input, { output: "", isError: false }),
    });
  }
}

function readSystemLine(
  line: LooseRecord,
  at: number,
  key: string,
  uuid: string | null,
  push: Push,
  mainLane: (fallback: string) => string,
): Extract<TimelineDetail, { kind: "compaction" }> | undefined {
  const subtype = asString(line.subtype) ?? "system";
  const text = asString(line.content) ?? "";
  if (subtype === "compact_boundary") {
    const meta = asRecord(line.compactMetadata);
    const summarized = meta && Array.isArray(meta.summarizedUuids) ? meta.summarizedUuids.length : null;
    const detail: Extract<TimelineDetail, { kind: "compaction" }> = {
      kind: "compaction",
      trigger: asString(meta?.trigger) ?? "unknown",
      preTokens: asNumber(meta?.preTokens) ?? null,
      postTokens: asNumber(meta?.postTokens) ?? null,
      summarizedCount: summarized,
      summary: null,
    };
    const tokens = detail.preTokens === null ? "" : ` ${detail.preTokens} → ${detail.postTokens ?? "?"} tokens`;
    const count = summarized === null ? "" : `, ${summarized} messages summarised`;
    push({
      id: `compact:${key}`,
      kind: "compaction",
      lane: "compaction",
      at,
      title: `Compaction (${detail.trigger})`,
      summary: `${tokens}${count}`.trim(),
      lineUuid: uuid,
      detail,
    });
    return detail;
  }
  const level = asString(line.level) ?? "info";
  const isError = level === "error";
  push({
    id: `system:${key}`,
    kind: isError ? "error" : "notice",
    lane: isError ? "errors" : mainLane("model"),
    at,
    title: subtype,
    status: isError ? "error" : "ok",
    lineUuid: uuid,
    detail: isError ? { kind: "error", message: text, relatedEventId: null } : { kind: "notice", subtype, level, text },
  });
  return undefined;
}

/** The hooks of a session event (UserPromptSubmit, Stop, SessionStart, PreCompact, …): one event per run on the hooks lane. */
function readHookRunsLine(line: LooseRecord, key: string, uuid: string | null, push: Push, mainLane: (fallback: string) => string): void {
  const event = asString(line.event) ?? "hook";
  asArray(line.runs).forEach((value, position) => {
    const run = asRecord(value);
    const start = asNumber(run?.startedAt);
    const end = asNumber(run?.endedAt);
    if (!run || start === undefined || end === undefined || end < start) return;
    const name = asString(run.name) ?? "";
    const outcome = asString(run.outcome) ?? "";
    const output = asString(run.output);
    push({
      id: `hooks:${key}:${position}`,
      kind: "hook",
      lane: mainLane("hooks"),
      at: start,
      start,
      end,
      title: `${event}: ${oneLine(name, 60)}`,
      summary: output ? `${outcome} · ${oneLine(output, SUMMARY_CHARS)}` : outcome,
      status: outcome === "blocked" ? "denied" : outcome === "ok" ? "ok" : "error",
      lineUuid: uuid,
      detail: { kind: "hook", event, name, outcome, toolUseId: null },
    });
  });
}
