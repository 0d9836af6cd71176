import type { PermissionDecisionRecord } from "../schema/permissions.ts";
import type { TranscriptLine } from "../schema/transcript.ts";

/** What the timeline is built from: a session's raw transcript lines, its subagents' sidechains. */
export type TimelineSource = {
  sessionId: string;
  title: string | null;
  cwd: string | null;
  /** Imported from a Claude Code transcript: no durations were recorded. */
  imported: boolean;
  /** The main thread's lines, in file order, tombstones and meta lines included. */
  lines: TranscriptLine[];
  sidechains: TimelineSidechain[];
  /** Lines the loader could not use (optional: a source built elsewhere may not know). */
  damage?: TimelineDamage;
};

export type TimelineSidechain = { agentId: string; description?: string; lines: TranscriptLine[] };

export type TimelineDamage = {
  /** Lines that were not JSON, or not a transcript line of a known shape. */
  malformedLines: number;
  /** The last line was cut short (a crash mid-write). */
  tornTail: boolean;
  /** Well-formed lines of types the timeline does not draw (`attachment`, `api-request`, …). */
  skippedLines: number;
};

export const timelineLaneKinds = ["model", "tools", "permission", "hooks", "compaction", "subagent", "errors"] as const;
export type TimelineLaneKind = (typeof timelineLaneKinds)[number];

export type TimelineLane = {
  /** `model`, `tools`, …, or `agent:<agentId>` for a subagent. */
  id: string;
  kind: TimelineLaneKind;
  label: string;
  agentId: string | null;
  /** Sub-rows needed so overlapping items (parallel tool calls) do not cover each other. */
  rows: number;
  /** Indices into `Timeline.events`, ordered by `at`. */
  items: number[];
  /** The longest item in the lane (ms): lets a viewer find what overlaps a window with one binary search. */
  maxDurationMs: number;
};

export const timelineEventKinds = ["prompt", "model", "tool", "permission", "hook", "compaction", "notice", "error", "tombstone", "classifier"] as const;
export type TimelineEventKind = (typeof timelineEventKinds)[number];

export const timelineStatuses = ["ok", "error", "denied", "tombstoned", "partial", "unfinished"] as const;
export type TimelineStatus = (typeof timelineStatuses)[number];

export type TokenCounts = { input: number; output: number; cacheRead: number; cacheWrite: number };

export type HookRunDetail = { event: string; name: string; outcome: string; toolUseId: string | null };

export type TimelineDetail =
  | { kind: "prompt"; text: string }
  | {
      kind: "model";
      model: string;
      messageId: string;
      ttftMs: number | null;
      durationMs: number | null;
      attempts: number;
      retries: number;
      tokens: TokenCounts | null;
      costUsd: number;
      stopReason: string | null;
      text: string;
      thinking: string;
      toolUseIds: string[];
      errorMessage: string | null;
    }
  | {
      kind: "tool";
      toolUseId: string;
      name: string;
      input: unknown;
      output: string;
      isError: boolean;
      errorClass: string | null;
      batch: number | null;
      decision: PermissionDecisionRecord | null;
      permissionWaitMs: number;
      /** When the call's own work began (after hooks and the permission wait); null when unknown. */
      runStart: number | null;
      waitStart: number | null;
      waitEnd: number | null;
      /** The subagent an Agent call ran. */
      spawnedAgentId: string | null;
    }
  | { kind: "permission"; toolUseId: string; toolName: string; waitMs: number; decision: PermissionDecisionRecord | null }
  /** Auto mode's classifier request for a tool call: a model call of its own, counted in the totals. */
  | {
      kind: "classifier";
      toolUseId: string;
      toolName: string;
      model: string;
      durationMs: number;
      tokens: TokenCounts | null;
      costUsd: number;
      /** Why it gave no verdict (`api_error`, `unparsable`, …); null when it gave one. */
      failure: string | null;
    }
  | ({ kind: "hook" } & HookRunDetail)
  | { kind: "compaction"; trigger: string; preTokens: number | null; postTokens: number | null; summarizedCount: number | null; summary: string | null }
  | { kind: "notice"; subtype: string; level: string; text: string }
  | { kind: "error"; message: string; relatedEventId: string | null }
  | { kind: "tombstone"; target: string; reason: string };

export type TimelineEvent = {
  /** Position in `Timeline.events` (which is ordered by `at`). */
  index: number;
  /** Stable across rebuilds of the same source: `tool:<toolUseId>`, `model:<messageId>`, `line:<uuid>`, … */
  id: string;
  kind: TimelineEventKind;
  lane: string;
  row: number;
  /** Epoch ms; null when the transcript recorded no timing for it. */
  start: number | null;
  end: number | null;
  /** Where to draw it when there is no start: the line's timestamp (a point, never a duration). Always finite. */
  at: number;
  timingKnown: boolean;
  title: string;
  summary: string;
  status: TimelineStatus;
  /** The text a search matches against, case-insensitively (kind, title, summary, bounded input and output). */
  searchText: string;
  agentId: string | null;
  toolName: string | null;
  /** The transcript line (uuid) it came from, when one line did. */
  lineUuid: string | null;
  detail: TimelineDetail;
};

/** One point of the running totals, after a model call ended. */
export type TotalsSeries = {
  t: number[];
  inputTokens: number[];
  outputTokens: number[];
  cacheReadTokens: number[];
  cacheWriteTokens: number[];
  costUsd: number[];
};

export type Timeline = {
  sessionId: string;
  title: string | null;
  imported: boolean;
  /** False when no call in the transcript recorded durations (imported Claude Code transcripts). */
  timingKnown: boolean;
  startMs: number;
  endMs: number;
  lanes: TimelineLane[];
  events: TimelineEvent[];
  totals: TotalsSeries;
  summary: {
    modelCalls: number;
    toolCalls: number;
    errors: number;
    tombstones: number;
    compactions: number;
    tokens: TokenCounts;
    costUsd: number;
    toolNames: string[];
  };
  damage: TimelineDamage | null;
};
