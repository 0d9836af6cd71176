// The session timeline: pure and browser-safe (the web app, the share page and the exported HTML file use it).
export { buildTimeline, totalsAt } from "./build-timeline.ts";
export { compactHead, compactTimeline, permissionWait } from "./compact.ts";
export type { CompactTimeline, TimelineRow, TimelineRows } from "./compact.ts";
export { compactPage, runningEndOffsets } from "./compact-page.ts";
export type { CompactTimelinePage } from "./compact-page.ts";
export { appendPagesToTable, TimelineEventColumns, timelineTableOf, timelineTableOfRows } from "./event-columns.ts";
export { TextColumn } from "./text-column.ts";
export type { TimelineTable } from "./event-columns.ts";
export { editDiff } from "./edit-diff.ts";
export { timelineQueryMatcher } from "./search.ts";
export { TimelineSearchIndex } from "./search-index.ts";
export { searchTextOf } from "./timeline-event.ts";
export { estimateCostUsd } from "../model/pricing.ts";
export type { DiffLine, EditDiff } from "./edit-diff.ts";
export { syntheticTimelineSource } from "./synthetic-source.ts";
export type { SyntheticSourceOptions } from "./synthetic-source.ts";
export { timelineEventKinds, timelineLaneKinds, timelineStatuses } from "./types.ts";
export type {
  HookRunDetail,
  Timeline,
  TimelineDamage,
  TimelineDetail,
  TimelineEvent,
  TimelineEventKind,
  TimelineLane,
  TimelineLaneKind,
  TimelineSidechain,
  TimelineSource,
  TimelineStatus,
  TokenCounts,
  TotalsSeries,
} from "./types.ts";
