import { clip, inputText } from "./line-fields.ts";
import type { TimelineDetail, TimelineEvent, TimelineEventKind, TimelineStatus } from "./types.ts";

const SEARCH_FIELD_CHARS = 600;

/**
 * A timeline event. Its search text is made on first use, from the event and its detail: most
 * events of a large session are never searched, and building 100,000 strings up front would cost
 * more than the rest of the timeline.
 */
export type TimelineEventFields = Pick<TimelineEvent, "id" | "kind" | "lane" | "title" | "summary" | "detail"> &
  Partial<Pick<TimelineEvent, "start" | "end" | "status" | "toolName" | "lineUuid">> & { at: number };

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
  summary: string;
  status: TimelineStatus;
  readonly agentId: string | null;
  readonly toolName: string | null;
  readonly lineUuid: string | null;
  readonly detail: TimelineDetail;
  private search: string | undefined = undefined;

  constructor(fields: TimelineEventFields, agentId: string | null) {
    this.id = fields.id;
    this.kind = fields.kind;
    this.lane = fields.lane;
    this.start = fields.start ?? null;
    this.end = fields.end ?? null;
    this.at = this.start ?? fields.at;
    this.timingKnown = this.start !== null && this.end !== null;
    this.title = fields.title;
    this.summary = fields.summary;
    this.status = fields.status ?? "ok";
    this.agentId = agentId;
    this.toolName = fields.toolName ?? null;
    this.lineUuid = fields.lineUuid ?? null;
    this.detail = fields.detail;
  }

  get searchText(): string {
    this.search ??= `${this.kind} ${this.title} ${this.summary} ${detailText(this.detail)}`;
    return this.search;
  }
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
  }
}
