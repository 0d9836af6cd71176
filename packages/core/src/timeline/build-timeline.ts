import { asArray, asRecord, asString } from "./line-fields.ts";
import { readThread, tombstoneTargets, type TimelineDraft } from "./thread-reader.ts";
import type { Timeline, TimelineEvent, TimelineLane, TimelineLaneKind, TimelineSource, TokenCounts, TotalsSeries } from "./types.ts";

const FIXED_LANES: ReadonlyArray<{ id: string; kind: TimelineLaneKind; label: string }> = [
  { id: "model", kind: "model", label: "Model" },
  { id: "tools", kind: "tools", label: "Tools" },
  { id: "permission", kind: "permission", label: "Permission waits" },
  { id: "hooks", kind: "hooks", label: "Hooks" },
  { id: "compaction", kind: "compaction", label: "Compaction" },
];

/** Statuses the errors lane marks (besides its own error and tombstone events). */
const MARKED = new Set(["error", "denied", "tombstoned", "partial"]);

type LaneBuilder = TimelineLane & { rowEnds: number[] };

/**
 * A session's timeline from its transcript lines: pure, one pass per thread plus one sort, no
 * lookups that grow with the session (tool results find their calls in a map). Safe on damaged
 * input: lines of unknown shape are skipped, impossible timings become unknown timings.
 */
export function buildTimeline(source: TimelineSource): Timeline {
  const sidechains = asArray(source.sidechains)
    .map(asRecord)
    .filter((sidechain) => sidechain !== undefined && typeof sidechain.agentId === "string")
    .map((sidechain) => ({ agentId: sidechain!.agentId as string, description: asString(sidechain!.description), lines: asArray(sidechain!.lines) }));
  const mainLines = asArray(source.lines);
  const draft: TimelineDraft = {
    events: [],
    tombstoned: tombstoneTargets([mainLines, ...sidechains.map((sidechain) => sidechain.lines)]),
    spawned: new Map(),
    timed: false,
  };
  readThread(mainLines, null, draft);
  for (const sidechain of sidechains) readThread(sidechain.lines, sidechain.agentId, draft);

  // Stable: events at the same instant keep their transcript order.
  const events = draft.events.sort((left, right) => left.at - right.at);
  const lanes = createLanes(sidechains, draft);
  const byId = new Map(lanes.map((lane) => [lane.id, lane]));
  const errors = byId.get("errors")!;
  let startMs = Number.POSITIVE_INFINITY;
  let endMs = Number.NEGATIVE_INFINITY;
  const counts = { modelCalls: 0, toolCalls: 0, errors: 0, tombstones: 0, compactions: 0 };
  const toolNames = new Set<string>();
  for (let index = 0; index < events.length; index++) {
    const event = events[index]!;
    event.index = index;
    startMs = Math.min(startMs, event.at);
    endMs = Math.max(endMs, event.end ?? event.at);
    const lane = byId.get(event.lane) ?? laneFor(event, lanes, byId);
    place(lane, event);
    if (lane !== errors && MARKED.has(event.status)) errors.items.push(index);
    if (event.kind === "model") counts.modelCalls++;
    else if (event.kind === "tool") counts.toolCalls++;
    else if (event.kind === "compaction") counts.compactions++;
    else if (event.kind === "tombstone") counts.tombstones++;
    if (event.status === "error" || event.status === "denied") counts.errors++;
    if (event.toolName !== null && event.kind === "tool") toolNames.add(event.toolName);
  }
  const { totals, tokens, costUsd } = runningTotals(events);
  return {
    sessionId: asString(source.sessionId) ?? "",
    title: asString(source.title) ?? null,
    imported: source.imported === true,
    timingKnown: draft.timed,
    startMs: events.length === 0 ? 0 : startMs,
    endMs: events.length === 0 ? 0 : endMs,
    lanes: lanes.map(({ rowEnds: _rowEnds, ...lane }) => lane),
    events,
    totals,
    summary: { ...counts, tokens, costUsd, toolNames: [...toolNames].sort() },
    damage: source.damage ?? null,
  };
}

function createLanes(sidechains: ReadonlyArray<{ agentId: string; description: string | undefined }>, draft: TimelineDraft): LaneBuilder[] {
  const lane = (id: string, kind: TimelineLaneKind, label: string, agentId: string | null): LaneBuilder => ({
    id,
    kind,
    label,
    agentId,
    rows: 1,
    items: [],
    maxDurationMs: 0,
    rowEnds: [],
  });
  const lanes = FIXED_LANES.map((fixed) => lane(fixed.id, fixed.kind, fixed.label, null));
  const seen = new Set<string>();
  for (const { agentId, description } of sidechains) {
    if (seen.has(agentId)) continue;
    seen.add(agentId);
    const label = description || draft.spawned.get(agentId) || agentId;
    lanes.push(lane(`agent:${agentId}`, "subagent", `Agent: ${label}`, agentId));
  }
  lanes.push(lane("errors", "errors", "Errors", null));
  return lanes;
}

/** An event naming a lane that does not exist (a sidechain listed twice under other ids): its agent's lane, made now. */
function laneFor(event: TimelineEvent, lanes: LaneBuilder[], byId: Map<string, LaneBuilder>): LaneBuilder {
  const created: LaneBuilder = {
    id: event.lane,
    kind: "subagent",
    label: event.lane,
    agentId: event.agentId,
    rows: 1,
    items: [],
    maxDurationMs: 0,
    rowEnds: [],
  };
  lanes.splice(lanes.length - 1, 0, created);
  byId.set(created.id, created);
  return created;
}

/** Greedy interval packing (events arrive ordered by start): the first row free at the start. */
function place(lane: LaneBuilder, event: TimelineEvent): void {
  lane.items.push(event.index);
  if (event.start === null || event.end === null) return;
  lane.maxDurationMs = Math.max(lane.maxDurationMs, event.end - event.start);
  const { rowEnds } = lane;
  let row = 0;
  while (row < rowEnds.length && rowEnds[row]! > event.start) row++;
  rowEnds[row] = event.end;
  event.row = row;
  if (row + 1 > lane.rows) lane.rows = row + 1;
}

function runningTotals(events: readonly TimelineEvent[]): { totals: TotalsSeries; tokens: TokenCounts; costUsd: number } {
  const points: Array<{ t: number; tokens: TokenCounts; costUsd: number }> = [];
  let ordered = true;
  for (const event of events) {
    // Model calls and auto mode's classifier requests both spend tokens.
    if ((event.detail.kind !== "model" && event.detail.kind !== "classifier") || event.detail.tokens === null || event.status === "tombstoned") continue;
    const t = event.end ?? event.at;
    if (points.length > 0 && t < points[points.length - 1]!.t) ordered = false;
    points.push({ t, tokens: event.detail.tokens, costUsd: event.detail.costUsd });
  }
  if (!ordered) points.sort((left, right) => left.t - right.t);
  const totals: TotalsSeries = { t: [], inputTokens: [], outputTokens: [], cacheReadTokens: [], cacheWriteTokens: [], costUsd: [] };
  const sum: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let costUsd = 0;
  for (const point of points) {
    sum.input += point.tokens.input;
    sum.output += point.tokens.output;
    sum.cacheRead += point.tokens.cacheRead;
    sum.cacheWrite += point.tokens.cacheWrite;
    costUsd += point.costUsd;
    totals.t.push(point.t);
    totals.inputTokens.push(sum.input);
    totals.outputTokens.push(sum.output);
    totals.cacheReadTokens.push(sum.cacheRead);
    totals.cacheWriteTokens.push(sum.cacheWrite);
    totals.costUsd.push(costUsd);
  }
  return { totals, tokens: sum, costUsd };
}

/** The running totals at time `t` (the last point at or before it): one binary search. */
export function totalsAt(totals: TotalsSeries, t: number): { tokens: TokenCounts; costUsd: number } {
  let low = 0;
  let high = totals.t.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (totals.t[middle]! <= t) low = middle + 1;
    else high = middle;
  }
  const at = low - 1;
  if (at < 0) return { tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, costUsd: 0 };
  return {
    tokens: {
      input: totals.inputTokens[at]!,
      output: totals.outputTokens[at]!,
      cacheRead: totals.cacheReadTokens[at]!,
      cacheWrite: totals.cacheWriteTokens[at]!,
    },
    costUsd: totals.costUsd[at]!,
  };
}
