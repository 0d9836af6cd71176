import { clip, inputText, oneLine, SUMMARY_CHARS, toolSubject } from "./line-fields.ts";
import type { TimelineDetail, TimelineEvent, TimelineEventKind, TimelineStatus } from "./types.ts";

const SEARCH_FIELD_CHARS = 600;

/**
 * A timeline event. Its search text is made on first use, from the event and its detail: most
 * events of a large session are never searched, and building 100,000 strings up front would cost
 * more than the rest of the timeline.
 */
/** `summary` may be left out: it is then made from the detail when first read. */
export type TimelineEventFields = Pick<TimelineEvent, "id" | "kind" | "lane" | "title" | "detail"> &
  Partial<Pick<TimelineEvent, "start" | "end" | "status" | "toolName" | "lineUuid" | "summary">> & { at: number };

export class TimelineEventRecord implements TimelineEvent {
  index = -1;
  row = 0;
  readonly id: string;
  readonly kind: TimelineEventKind;
  readonly lane: string;
  start: number | null;
  end: number | null;
  at: number;
  timingKnown: boolean;
  readonly title: string;
  status: TimelineStatus;
  readonly agentId: string | null;
  readonly toolName: string | null;
  readonly lineUuid: string | null;
  readonly detail: TimelineDetail;
  private search: string | undefined = undefined;
  private summaryText: string | undefined;

  constructor(fields: TimelineEventFields, agentId: string | null) {
    this.id = fields.id;
    this.kind = fields.kind;
    this.lane = fields.lane;
    this.start = fields.start ?? null;
    this.end = fields.end ?? null;
    this.at = this.start ?? fields.at;
    this.timingKnown = this.start !== null && this.end !== null;
    this.title = fields.title;
    this.summaryText = fields.summary;
    this.status = fields.status ?? "ok";
    this.agentId = agentId;
    this.toolName = fields.toolName ?? null;
    this.lineUuid = fields.lineUuid ?? null;
    this.detail = fields.detail;
  }

  /** One line saying what the event was; made on first read (most rows of a large session are never shown). */
  get summary(): string {
    this.summaryText ??= summaryOf(this.detail, this.status);
    return this.summaryText;
  }

  get searchText(): string {
    this.search ??= this.makeSearchText();
    return this.search;
  }

  /** The search text, made without keeping it (a server-side index holds it in its own form). */
  makeSearchText(): string {
    return this.search ?? `${this.kind} ${this.title} ${this.summary} ${detailText(this.detail)}`;
  }
}

/** An event's search text; a `TimelineEventRecord` does not keep it. */
export function searchTextOf(event: TimelineEvent): string {
  return event instanceof TimelineEventRecord ? event.makeSearchText() : event.searchText;
}

function summaryOf(detail: TimelineDetail, status: TimelineStatus): string {
  switch (detail.kind) {
    case "model":
      return modelSummary(detail);
    case "tool": {
      const subject = oneLine(toolSubject(detail.input), SUMMARY_CHARS);
      if (status === "unfinished") return `${subject} (no result recorded)`.trim();
      return subject || oneLine(detail.output, SUMMARY_CHARS);
    }
    case "prompt":
      return oneLine(detail.text, SUMMARY_CHARS);
    case "notice":
      return oneLine(detail.text, SUMMARY_CHARS);
    case "error":
      return oneLine(detail.message, SUMMARY_CHARS);
    case "classifier": {
      const tokens = detail.tokens ? `${detail.tokens.input} in / ${detail.tokens.output} out` : "";
      return [detail.model, tokens, `${Math.round(detail.durationMs)} ms`, detail.failure ? `no verdict (${detail.failure})` : ""].filter(Boolean).join(" · ");
    }
    default:
      return "";
  }
}

function modelSummary(detail: Extract<TimelineDetail, { kind: "model" }>): string {
  let summary = detail.tokens ? `${detail.tokens.input} in / ${detail.tokens.output} out` : "";
  const add = (part: string) => {
    summary = summary === "" ? part : `${summary} · ${part}`;
  };
  if (detail.ttftMs !== null) add(`TTFT ${Math.round(detail.ttftMs)} ms`);
  if (detail.retries > 0) add(`${detail.retries} ${detail.retries === 1 ? "retry" : "retries"}`);
  const calls = detail.toolUseIds.length;
  if (calls > 0) add(`${calls} tool ${calls === 1 ? "call" : "calls"}`);
  const text = oneLine(detail.errorMessage ?? detail.text, 80);
  if (text) add(text);
  return summary;
}

/** The parts of a detail a search should find: bounded, so one huge output cannot dominate. */
function detailText(detail: TimelineDetail): string {
  switch (detail.kind) {
    case "prompt":
      return clip(detail.text, SEARCH_FIELD_CHARS);
    case "model":
      return clip(detail.errorMessage ?? detail.text, SEARCH_FIELD_CHARS);
    case "tool":
      return `${inputText(detail.input, SEARCH_FIELD_CHARS)} ${clip(detail.output, SEARCH_FIELD_CHARS)}`;
    case "hook":
      return `${detail.event} ${detail.name} ${detail.outcome}`;
    case "compaction":
      return clip(detail.summary ?? "", SEARCH_FIELD_CHARS);
    case "notice":
      return clip(detail.text, SEARCH_FIELD_CHARS);
    case "error":
      return clip(detail.message, SEARCH_FIELD_CHARS);
    case "tombstone":
      return `${detail.target} ${detail.reason}`;
    case "permission":
      return detail.decision ? `${detail.decision.behavior} ${detail.decision.reason.type}` : "";
    case "classifier":
      return `${detail.toolName} ${detail.model} ${detail.failure ?? ""}`;
  }
}
