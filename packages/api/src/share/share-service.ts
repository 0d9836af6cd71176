import { ApiError } from "../router/errors.ts";
import type { RedactionHit, Redactor } from "./redact.ts";
import { ShareError } from "./share-errors.ts";
import { isShareLive, type ShareRecord, type ShareRepository } from "./share-records.ts";
import { sharePath } from "./share-token.ts";
import type {
  CreatedShare,
  CreateShareInput,
  ForkedShare,
  RotatedShare,
  ShareInput,
  SharePreview,
  SharePreviewHit,
  ShareSessionSource,
  SharesPort,
  ShareSummary,
} from "./share-types.ts";
import { pinFor, sharedMessages } from "./shared-messages.ts";

export const DEFAULT_SHARE_DAYS = 30;
export const MAX_SHARE_DAYS = 365;
const DAY_MS = 86_400_000;
const MAX_EXAMPLES = 3;

export type ShareServiceOptions = {
  store: ShareRepository;
  sessions: ShareSessionSource;
  redactor: Redactor;
  /** Shares are per workspace: a server lists and serves only its own. */
  workspaceRoot: string;
  now?: () => number;
};

/** The owner's side of share links: preview, create, list, rotate, revoke, and fork a shared session. */
export class ShareService implements SharesPort {
  private readonly options: ShareServiceOptions;
  private readonly now: () => number;

  constructor(options: ShareServiceOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  async preview(input: ShareInput): Promise<SharePreview> {
    const snapshot = await this.options.sessions.get(input.sessionId);
    const pin = pinFor(input.mode, snapshot.messages, input.messageUuid);
    const messages = sharedMessages(snapshot.messages, pin);
    const { hits } = this.options.redactor.redactValue({ title: snapshot.title, messages });
    return { hits: groupHits(hits), messageCount: messages.length };
  }

  async create(input: CreateShareInput): Promise<CreatedShare> {
    const days = input.expiresInDays ?? DEFAULT_SHARE_DAYS;
    if (!Number.isInteger(days) || days < 1 || days > MAX_SHARE_DAYS) throw new ShareError("nothing_to_share", `A share lasts 1 to ${MAX_SHARE_DAYS} days`);
    const snapshot = await this.options.sessions.get(input.sessionId);
    const pin = pinFor(input.mode, snapshot.messages, input.messageUuid);
    if (input.mode === "snapshot" && pin === null) throw new ShareError("nothing_to_share", "The session has no messages to share yet");
    const { record, token } = await this.options.store.create({
      sessionId: input.sessionId,
      workspaceRoot: this.options.workspaceRoot,
      title: snapshot.title,
      mode: input.mode,
      pinnedMessageUuid: pin,
      expiresAt: this.now() + days * DAY_MS,
    });
    return { shareId: record.shareId, token, url: sharePath(token), expiresAt: iso(record.expiresAt), pinnedMessageUuid: record.pinnedMessageUuid };
  }

  async list(): Promise<ShareSummary[]> {
    const now = this.now();
    return (await this.options.store.list(this.options.workspaceRoot)).map((record) => summary(record, now));
  }

  async rotate(shareId: string): Promise<RotatedShare> {
    const record = await this.own(shareId);
    // A new address for a dead share would be a dead link.
    if (!isShareLive(record, this.now())) throw new ShareError("share_not_found", "An expired or revoked share cannot be rotated");
    const token = await this.options.store.rotate(shareId);
    if (token === undefined) throw new ShareError("share_not_found", "An expired or revoked share cannot be rotated");
    return { token, url: sharePath(token) };
  }

  async revoke(shareId: string): Promise<{ revoked: boolean }> {
    await this.own(shareId);
    return { revoked: await this.options.store.revoke(shareId) };
  }

  /**
   * "Continue as a copy": a new session holding the shared conversation up to `messageUuid` (default:
   * the pin, or the last shared message), and the workspace files restored to that message's
   * checkpoint when there is one.
   */
  async fork(token: string, messageUuid: string | undefined): Promise<ForkedShare> {
    const record = await this.options.store.findByToken(token);
    if (!record || !isShareLive(record, this.now()) || record.workspaceRoot !== this.options.workspaceRoot) throw ShareError.notFound();
    const snapshot = await this.options.sessions.get(record.sessionId).catch((error: unknown) => {
      throw error instanceof ApiError && error.code === "session_not_found" ? ShareError.notFound() : error;
    });
    const shared = sharedMessages(snapshot.messages, record.pinnedMessageUuid);
    const target = messageUuid ?? shared.at(-1)?.uuid;
    if (target === undefined) throw new ShareError("nothing_to_share", "The shared session has no messages yet");
    if (!shared.some((message) => message.uuid === target)) throw new ShareError("message_not_shared", `Message ${target} is not part of this share`);
    const forked = await this.options.sessions.fork(record.sessionId, target);
    let filesRestored = false;
    try {
      const rewound = await this.options.sessions.rewind(record.sessionId, target, "files");
      filesRestored = rewound.restoredCheckpoint !== null;
    } catch (error) {
      // A running source session, or a server without checkpoints: the conversation is forked, the files stay.
      if (!(error instanceof ApiError && (error.code === "session_busy" || error.code === "not_implemented"))) throw error;
    }
    return { sessionId: forked.sessionId, filesRestored };
  }

  /** A share of another workspace is as unknown here as a share that never existed. */
  private async own(shareId: string): Promise<ShareRecord> {
    const record = await this.options.store.get(shareId);
    if (!record || record.workspaceRoot !== this.options.workspaceRoot) throw new ShareError("share_not_found", `No share ${shareId}`);
    return record;
  }
}

export function groupHits(hits: readonly RedactionHit[]): SharePreviewHit[] {
  const byKind = new Map<string, SharePreviewHit>();
  for (const hit of hits) {
    let group = byKind.get(hit.kind);
    if (!group) {
      group = { kind: hit.kind, count: 0, examples: [] };
      byKind.set(hit.kind, group);
    }
    group.count++;
    if (group.examples.length < MAX_EXAMPLES && !group.examples.includes(hit.preview)) group.examples.push(hit.preview);
  }
  return [...byKind.values()].sort((left, right) => right.count - left.count || left.kind.localeCompare(right.kind));
}

function summary(record: ShareRecord, now: number): ShareSummary {
  return {
    shareId: record.shareId,
    sessionId: record.sessionId,
    title: record.title,
    mode: record.mode,
    pinnedMessageUuid: record.pinnedMessageUuid,
    createdAt: iso(record.createdAt),
    expiresAt: iso(record.expiresAt),
    revokedAt: record.revokedAt === null ? null : iso(record.revokedAt),
    lastAccessAt: record.lastAccessAt === null ? null : iso(record.lastAccessAt),
    viewCount: record.viewCount,
    status: record.revokedAt !== null ? "revoked" : isShareLive(record, now) ? "active" : "expired",
  };
}

export function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
