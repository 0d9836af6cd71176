import type { ConversationMessage } from "@cairn/core/schema";
import type { TimelineSource } from "@cairn/core/timeline";
import type { SessionSnapshot } from "../router/types.ts";
import type { SequencedEvent } from "../router/context.ts";
import { ApiError } from "../router/errors.ts";
import { RedactedEventLogs } from "./redacted-event-log.ts";
import type { TokenBucketLimiter } from "./rate-limiter.ts";
import type { ShareStreamGate, StreamAdmission } from "./stream-gate.ts";
import type { Redactor } from "./redact.ts";
import { ShareError } from "./share-errors.ts";
import { iso } from "./share-service.ts";
import { isShareLive, type ShareRecord, type ShareRepository } from "./share-records.ts";
import type { SharedSessionView, ShareSessionSource, ShareViewPort } from "./share-types.ts";
import { sharedMessages, sharedTitle } from "./shared-messages.ts";
import { SHARED_SESSION_PLACEHOLDER, scrubSessionId } from "./session-id-scrub.ts";

/** Builds what the timeline shows of a session (the timeline's `loadTimelineSource`), limited to the shared messages. */
export type TimelineSourceLoader = (input: { sessionId: string; messages: SessionSnapshot["messages"]; signal?: AbortSignal }) => Promise<TimelineSource>;

export type ShareViewServiceOptions = {
  store: ShareRepository;
  sessions: Pick<ShareSessionSource, "get" | "events">;
  redactor: Redactor;
  limiter: TokenBucketLimiter;
  /** Caps on open live-share streams (checked before a stream starts, so refusals get a real 429). */
  gate: ShareStreamGate;
  workspaceRoot: string;
  timeline?: TimelineSourceLoader;
  now?: () => number;
  /** How often an open stream re-checks its share (expiry); rotate and revoke cut it at once. Default 500 ms. */
  recheckMs?: number;
};

/**
 * The read side of share links, for the unauthenticated router. Every call resolves the token again
 * (hash lookup, expiry, revocation, workspace) and reaches only the one session the share names.
 * Unknown, malformed, expired and revoked tokens all fail the same way, and each failure costs the
 * client one token of its rate-limit bucket.
 */
export class ShareViewService implements ShareViewPort {
  private readonly options: ShareViewServiceOptions;
  private readonly now: () => number;
  private readonly redactedMessages = new WeakMap<ConversationMessage, { sessionId: string; message: ConversationMessage }>();
  private readonly eventLogs: RedactedEventLogs;

  constructor(options: ShareViewServiceOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.eventLogs = new RedactedEventLogs({ sessions: options.sessions, redactor: options.redactor });
  }

  /**
   * A place for one more `view.events` stream, or why not. Undefined when the token opens no live share:
   * the stream itself then answers 404 (and counts the failure against the client).
   */
  async admitStream(token: string, client: string): Promise<StreamAdmission | undefined> {
    const record = await this.options.store.findByToken(token);
    if (!record || record.mode !== "live" || !isShareLive(record, this.now()) || record.workspaceRoot !== this.options.workspaceRoot) return undefined;
    return this.options.gate.admit(client, record.shareId);
  }

  async session(token: string, client: string): Promise<SharedSessionView> {
    const record = await this.resolve(token, client);
    const snapshot = await this.snapshotOf(record);
    const messages = sharedMessages(snapshot.messages, record.pinnedMessageUuid);
    await this.options.store.recordView(record.shareId);
    const live = record.mode === "live";
    const redactedMessages = messages.map((message) => this.redacted(message, record.sessionId));
    return {
      title: scrubSessionId(sharedTitle(this.options.redactor, snapshot.title, messages, redactedMessages), record.sessionId),
      mode: record.mode,
      createdAt: iso(record.createdAt),
      expiresAt: iso(record.expiresAt),
      running: live && snapshot.running,
      pinnedMessageUuid: record.pinnedMessageUuid,
      messages: redactedMessages,
      lastEventId: live ? String(snapshot.streamingFromSeq ?? snapshot.lastSeq) : null,
    };
  }

  async timelineSource(token: string, client: string): Promise<TimelineSource> {
    const record = await this.resolve(token, client);
    const snapshot = await this.snapshotOf(record);
    const messages = sharedMessages(snapshot.messages, record.pinnedMessageUuid);
    const loader = this.options.timeline;
    const source: TimelineSource =
      loader && messages.length > 0
        ? await loader({ sessionId: record.sessionId, messages }).catch((error: unknown) => {
            throw error instanceof ApiError && error.code === "session_not_found" ? ShareError.notFound() : error;
          })
        : // Without the transcript reader (or before the first line is written): the shared messages alone, as lines.
          {
            sessionId: record.sessionId,
            title: snapshot.title,
            cwd: null,
            imported: false,
            lines: messages.map((message) => ({ ...message, sessionId: record.sessionId })),
            sidechains: [],
          };
    const redacted = scrubSessionId(this.options.redactor.redactValue(source).value, record.sessionId);
    const title =
      source.title === null
        ? null
        : scrubSessionId(
            sharedTitle(
              this.options.redactor,
              source.title,
              messages,
              messages.map((message) => this.redacted(message, record.sessionId)),
            ),
            record.sessionId,
          );
    return { ...redacted, sessionId: SHARED_SESSION_PLACEHOLDER, title };
  }

  async *events(token: string, client: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<SequencedEvent> {
    const record = await this.resolve(token, client);
    if (record.mode !== "live") throw ShareError.notFound();
    const stream = new AbortController();
    let died = false;
    let checking: Promise<void> | undefined;
    let checkAgain = false;
    // One lookup at a time (a change seen meanwhile asks for another); a lookup that fails (the database away) keeps the stream.
    const recheck = () => {
      if (died) return;
      if (checking) {
        checkAgain = true;
        return;
      }
      checking = this.stillLive(token, record).then((live) => {
        checking = undefined;
        if (!live && !died) {
          died = true;
          stream.abort();
        }
        if (checkAgain) {
          checkAgain = false;
          recheck();
        }
      });
    };
    const onAbort = () => stream.abort();
    signal.addEventListener("abort", onAbort);
    const unsubscribe = this.options.store.onChange((change) => {
      if (change.shareId === record.shareId) recheck();
    });
    const timer = setInterval(recheck, this.options.recheckMs ?? 500);
    try {
      if (signal.aborted) return;
      // Redacted once per session for every viewer, not again for each one.
      for await (const item of this.eventLogs.read(record.sessionId, afterSeq, stream.signal)) {
        yield item;
        // A rotate or revoke (here, or on another node through the store) and the timer mark it dead; seen between events.
        if (died) break;
      }
      if (died) throw ShareError.notFound();
    } finally {
      clearInterval(timer);
      unsubscribe();
      died = true;
      await checking;
      signal.removeEventListener("abort", onAbort);
      stream.abort();
    }
  }

  /** Messages never change once held, so each is redacted once (per loaded session object), not per view. */
  private redacted(message: ConversationMessage, sessionId: string): ConversationMessage {
    const cached = this.redactedMessages.get(message);
    if (cached?.sessionId === sessionId) return cached.message;
    const redacted = scrubSessionId(this.options.redactor.redactValue(message).value, sessionId);
    this.redactedMessages.set(message, { sessionId, message: redacted });
    return redacted;
  }

  /**
   * What the share page for this token shows: the share, the 404 page for a dead one, or the 429 page when
   * this client has run out of failed lookups. A lookup like any other: a failure costs the client a token of
   * its rate-limit bucket; nothing is counted as a view.
   */
  async pageState(token: string, client: string): Promise<"available" | "not_found" | "rate_limited"> {
    try {
      await this.resolve(token, client);
      return "available";
    } catch (error) {
      if (error instanceof ShareError) return error.code === "rate_limited" ? "rate_limited" : "not_found";
      throw error;
    }
  }

  /**
   * The live share a token opens, or the one error every failure gets. The hash lookup comes first: a token
   * that opens a share passes even when the client's bucket is empty (a noisy neighbour behind the same NAT
   * must not hide a working link); only failures spend the bucket, and an empty bucket answers 429, not 404.
   */
  private async resolve(token: string, client: string): Promise<ShareRecord> {
    // Always a hash lookup, whatever the token looks like: the same path for every failure.
    const record = await this.options.store.findByToken(token);
    if (record && isShareLive(record, this.now()) && record.workspaceRoot === this.options.workspaceRoot) return record;
    if (!this.options.limiter.allowed(client)) throw new ShareError("rate_limited", "Too many failed share lookups from this address; try again in a minute");
    this.options.limiter.take(client);
    throw ShareError.notFound();
  }

  private async stillLive(token: string, opened: ShareRecord): Promise<boolean> {
    const record = await this.options.store.findByToken(token).catch(() => opened);
    return record !== undefined && record.shareId === opened.shareId && isShareLive(record, this.now());
  }

  private async snapshotOf(record: ShareRecord): Promise<SessionSnapshot> {
    try {
      return await this.options.sessions.get(record.sessionId);
    } catch (error) {
      // The session's transcript is gone: to a viewer, the share is.
      if (error instanceof ApiError && error.code === "session_not_found") throw ShareError.notFound();
      throw error;
    }
  }
}
