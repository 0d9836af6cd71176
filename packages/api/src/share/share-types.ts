import type { ConversationMessage } from "@cairn/core/schema";
import type { TimelineSource } from "@cairn/core/timeline";
import type { SequencedEvent } from "../router/context.ts";
import type { RewindMode, RewindResult, SessionSnapshot } from "../router/types.ts";
import type { ShareMode } from "./share-records.ts";

/** Plain JSON for the web UI: times are ISO strings; never a token or its hash. */
export type ShareSummary = {
  shareId: string;
  sessionId: string;
  /** The session's title when the share was made. */
  title: string;
  mode: ShareMode;
  pinnedMessageUuid: string | null;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  lastAccessAt: string | null;
  viewCount: number;
  status: "active" | "expired" | "revoked";
};

export type SharePreviewHit = {
  kind: string;
  count: number;
  /** Up to three distinct secrets of this kind, masked ("sk-ant-…Xy"). */
  examples: string[];
};

export type SharePreview = { hits: SharePreviewHit[]; messageCount: number };

export type CreatedShare = {
  shareId: string;
  /** Shown once: only its hash is kept. */
  token: string;
  /** The path of the share page, "/share/<token>". */
  url: string;
  expiresAt: string;
  pinnedMessageUuid: string | null;
};

export type RotatedShare = { token: string; url: string };

export type ForkedShare = {
  sessionId: string;
  /** Whether the workspace files were restored to the checkpoint of the forked-at message. */
  filesRestored: boolean;
};

/** What the share page shows: redacted, the main thread only, ending at the pin for a snapshot. */
export type SharedSessionView = {
  title: string;
  mode: ShareMode;
  createdAt: string;
  expiresAt: string;
  /** Whether the session is running now (always false for a snapshot). */
  running: boolean;
  pinnedMessageUuid: string | null;
  messages: ConversationMessage[];
  /** Live shares: subscribe to `view.events` with this `lastEventId` to continue from this view. Null for snapshots. */
  lastEventId: string | null;
};

export type ShareInput = { sessionId: string; mode: ShareMode; messageUuid?: string | undefined };
export type CreateShareInput = ShareInput & { expiresInDays?: number | undefined };

/** The owner's share operations (the authenticated router's `share.*`). */
export interface SharesPort {
  preview(input: ShareInput): Promise<SharePreview>;
  create(input: CreateShareInput): Promise<CreatedShare>;
  list(): Promise<ShareSummary[]>;
  rotate(shareId: string): Promise<RotatedShare>;
  revoke(shareId: string): Promise<{ revoked: boolean }>;
  fork(token: string, messageUuid: string | undefined): Promise<ForkedShare>;
}

/**
 * Everything the unauthenticated share router can do: read one share, by its token. `client` is the
 * caller's address, for rate limiting failed lookups.
 */
export interface ShareViewPort {
  session(token: string, client: string): Promise<SharedSessionView>;
  /** What the timeline draws of the shared part of the session (its lines up to the pin), redacted. */
  timelineSource(token: string, client: string): Promise<TimelineSource>;
  /** Live shares only: the session's events after `afterSeq`, redacted; ends (NOT_FOUND) when the share dies. */
  events(token: string, client: string, afterSeq: number, signal: AbortSignal): AsyncIterable<SequencedEvent>;
}

/** The part of the session hub shares use. */
export interface ShareSessionSource {
  get(sessionId: string): Promise<SessionSnapshot>;
  fork(sessionId: string, messageUuid: string): Promise<{ sessionId: string }>;
  rewind(sessionId: string, messageUuid: string, mode: RewindMode): Promise<RewindResult>;
  events(sessionId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<SequencedEvent>;
}
