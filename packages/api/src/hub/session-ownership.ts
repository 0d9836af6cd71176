import { permissionAnswerSchema, permissionBehaviorSchema, permissionModeSchema, permissionQuestionFields } from "@cairn/core/schema";
import { z } from "zod";

/**
 * The commands that change a running session and so must run on the node that owns it (holds its
 * lease): a prompt, an interrupt, a permission answer, a mode or model switch, a compaction, a fork or
 * rewind (the owner's transcript is complete, and only it may write), a session rule, and the
 * snapshot a tab starts from or resyncs with (only the owner knows the pending permission prompts and
 * whether a run is going, and another node's copy of the conversation may be behind). Validated with zod where they arrive from another node.
 */
export const sessionCommandSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("send"), sessionId: z.string(), prompt: z.string() }),
  z.object({ kind: z.literal("interrupt"), sessionId: z.string() }),
  z.object({ kind: z.literal("respond"), sessionId: z.string(), requestId: z.string(), answer: permissionAnswerSchema }),
  z.object({ kind: z.literal("set-mode"), sessionId: z.string(), mode: permissionModeSchema }),
  z.object({ kind: z.literal("set-model"), sessionId: z.string(), model: z.string() }),
  z.object({ kind: z.literal("get"), sessionId: z.string() }),
  z.object({ kind: z.literal("backfill"), sessionId: z.string() }),
  z.object({ kind: z.literal("compact"), sessionId: z.string(), instructions: z.string().optional() }),
  z.object({ kind: z.literal("fork"), sessionId: z.string(), messageUuid: z.string() }),
  z.object({ kind: z.literal("rewind"), sessionId: z.string(), messageUuid: z.string(), mode: z.enum(["files", "conversation", "both"]) }),
  z.object({ kind: z.literal("rewind-preview"), sessionId: z.string(), messageUuid: z.string() }),
  z.object({ kind: z.literal("add-rule"), sessionId: z.string(), behavior: permissionBehaviorSchema, rule: z.string() }),
  z.object({ kind: z.literal("remove-rule"), sessionId: z.string(), behavior: permissionBehaviorSchema, rule: z.string() }),
  z.object({ kind: z.literal("rules"), sessionId: z.string() }),
]);
export type SessionCommand = z.infer<typeof sessionCommandSchema>;

/** A permission question waiting for an answer, as the owner keeps it for a node that takes the session over. */
const waitingQuestionSchema = z.object(permissionQuestionFields());

/**
 * What the owner of a session keeps with its lease, for the node that takes the session over next:
 * its permission mode and model (else the new owner would start with the server's defaults), and
 * the permission questions waiting for an answer (asked again there).
 */
export const carriedStateSchema = z.object({
  permissionMode: permissionModeSchema,
  model: z.string(),
  waitingQuestions: z.array(waitingQuestionSchema),
  /** A prompt is running (shown as running in every node's session list while the lease is live). */
  running: z.boolean().optional(),
});
export type CarriedState = z.infer<typeof carriedStateSchema>;

/** How a session came to this node when it took the lease. */
export type Acquisition = {
  /** The previous owner's lease lapsed without being released: it died (or stalled) mid-session. */
  crashed: boolean;
  previousOwner: string | null;
  /** What the previous owner kept with the lease (undefined when it kept nothing, or nothing readable). */
  carried: CarriedState | undefined;
};

/** What the hub does for the ownership layer. */
export interface OwnershipHost {
  /** This node has just taken the lease: drop any stale copy, load the session from its transcript, recover a crashed turn. */
  acquired(sessionId: string, acquisition: Acquisition): Promise<void>;
  /** Another node has taken the lease: stop the session here, writing nothing more. */
  lost(sessionId: string): void;
  /** Runs a command here (this node holds the lease). */
  execute(command: SessionCommand): Promise<unknown>;
  /** Sessions a tab on this node follows: a lapsed lease among them is taken over without waiting for a command. */
  watched(): string[];
}

/**
 * One writer per session across nodes (distributed mode with PostgreSQL). Embedded Cairn has none:
 * every command runs in-process, as before.
 */
export interface SessionOwnership {
  readonly nodeId: string;
  start(host: OwnershipHost): void;
  /**
   * Runs `command` where the session's owner is: `here` when this node holds the lease or has now
   * taken it (free, released or lapsed), else on the owner node; when the owner cannot be reached its
   * lease is waited out and taken over. The result crosses nodes as JSON.
   */
  route<T>(command: SessionCommand, here: () => Promise<T>): Promise<T>;
  /** A session created here: its lease is taken at once, so other nodes route to this one. */
  claimNew(sessionId: string): Promise<void>;
  /**
   * Whether the session exists somewhere in the cluster (a node has claimed it), even before its first
   * transcript line: a tab on another node can then follow it from its creation.
   */
  known(sessionId: string): Promise<boolean>;
  holds(sessionId: string): boolean;
  /** Keeps `state` with the lease while this node holds it (nothing otherwise); resolves once written. */
  carry(sessionId: string, state: CarriedState): Promise<void>;
  /** Gives up a session (idle eviction, drain): the next command anywhere takes it over cleanly. */
  release(sessionId: string): Promise<void>;
  /** Stops renewing and answering; releases every lease still held (call once the sessions have stopped). */
  close(): Promise<void>;
}
