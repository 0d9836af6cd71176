import {
  conversationMessageSchema,
  sessionMetaLineText,
  TRANSCRIPT_SCHEMA_VERSION,
  type ConversationMessage,
  type HookRunRecord,
  type SessionMetaOptions,
} from "@cairn/core/schema";
import { TranscriptStoreError } from "@cairn/core/node";

/** What every line of one session carries. */
export type LineEnvelope = { sessionId: string; cwd: string; version: string };

/**
 * The JSONL lines of a session as text, built exactly as the JSONL file store builds them (its
 * tests compare the two): Claude Code's envelope on conversation lines, Cairn's own line types for
 * the session meta, tombstones, hook runs and checkpoints. A store that keeps lines elsewhere writes
 * these strings, so its export is the JSONL file.
 */
export function transcriptLineText(envelope: LineEnvelope, now: () => Date = () => new Date()) {
  const common = { sessionId: envelope.sessionId, cwd: envelope.cwd, version: envelope.version, userType: "external", cairnSchema: TRANSCRIPT_SCHEMA_VERSION };
  return {
    meta(options: SessionMetaOptions = {}): string {
      return sessionMetaLineText({ ...envelope, timestamp: now().toISOString() }, options);
    },
    message(message: ConversationMessage): string {
      const parsed = conversationMessageSchema.safeParse(message);
      if (!parsed.success) throw new TranscriptStoreError("invalid-message", `Refusing to write an invalid message: ${parsed.error.message}`);
      return JSON.stringify({ isSidechain: false, ...parsed.data, ...common });
    },
    tombstone(tombstoneOf: string, reason: string): string {
      return JSON.stringify({
        type: "tombstone",
        sessionId: envelope.sessionId,
        timestamp: now().toISOString(),
        tombstoneOf,
        reason,
        cairnSchema: TRANSCRIPT_SCHEMA_VERSION,
      });
    },
    hookRuns(event: string, runs: readonly HookRunRecord[]): string {
      return JSON.stringify({
        type: "cairn-hooks",
        sessionId: envelope.sessionId,
        timestamp: now().toISOString(),
        event,
        runs,
        cairnSchema: TRANSCRIPT_SCHEMA_VERSION,
      });
    },
    checkpoint(messageUuid: string, commit: string): string {
      return JSON.stringify({
        type: "cairn-checkpoint",
        sessionId: envelope.sessionId,
        timestamp: now().toISOString(),
        messageUuid,
        commit,
        cairnSchema: TRANSCRIPT_SCHEMA_VERSION,
      });
    },
  };
}
