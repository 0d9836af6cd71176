import { randomUUID } from "node:crypto";
import { INTERRUPTED_TOOL_RESULT, unansweredToolCalls, type PermissionRequest } from "@cairn/core";
import type { ConversationMessage, PermissionMode, ToolResultBlock } from "@cairn/core/schema";
import type { SessionsPort } from "../router/context.ts";
import type { SessionEvent } from "../router/types.ts";
import { ApiError } from "../router/errors.ts";
import type { EventBus } from "./event-bus.ts";
import type { LiveSession } from "./live-session.ts";
import { executeSessionCommand } from "./session-command.ts";
import { metaNote } from "./session-derive.ts";
import type { CarriedState, OwnershipHost } from "./session-ownership.ts";

/** What a dead owner left of its last turn: nothing (the turn ended), or an unfinished turn and its tool calls without a result. */
export type UnfinishedTurn = { unfinished: false } | { unfinished: true; lastUuid: string; missingResults: string[] };

/**
 * Whether the conversation stops mid-turn: after a response whose tool calls do not all have a
 * result yet (they ran, or waited for a permission answer), or after the prompt or tool results (the
 * model was being called). A response without tool calls, or nothing at all, ends a turn.
 */
export function unfinishedTurn(history: readonly ConversationMessage[]): UnfinishedTurn {
  const last = history.at(-1);
  if (!last || last.type === "system") return { unfinished: false };
  const unanswered = unansweredToolCalls(history);
  if (unanswered) return { unfinished: true, lastUuid: last.uuid, missingResults: unanswered.calls.map((call) => call.id) };
  if (last.type === "user") return { unfinished: true, lastUuid: last.uuid, missingResults: [] };
  return { unfinished: false };
}

/**
 * Resumes a session whose owner died mid-turn, as after a crash: the tool calls it left without a
 * result get an interrupted `is_error` result and a note tells the model (and the transcript) that the
 * turn was cut off, so the next request is well formed; every tab sees the turn end with a
 * `turn_interrupted` notice and the session idle. A session whose last turn had ended is left alone.
 */
export async function recoverInterruptedTurn(session: LiveSession, bus: EventBus, previousOwner: string): Promise<boolean> {
  const turn = unfinishedTurn(session.messages());
  if (!turn.unfinished) return false;
  const now = new Date().toISOString();
  const recorded: ConversationMessage[] = [];
  let parentUuid = turn.lastUuid;
  if (turn.missingResults.length > 0) {
    const content: ToolResultBlock[] = turn.missingResults.map((id) => ({
      type: "tool_result",
      tool_use_id: id,
      content: INTERRUPTED_TOOL_RESULT,
      is_error: true,
    }));
    const results: ConversationMessage = { type: "user", uuid: randomUUID(), parentUuid, timestamp: now, message: { role: "user", content } };
    recorded.push(results);
    parentUuid = results.uuid;
  }
  const why = `The previous turn was interrupted: the server running this session (${previousOwner}) stopped before the turn finished.`;
  recorded.push(metaNote(`${why} Tool calls without a result did not complete.`, parentUuid));
  await session.record(recorded);
  bus.publish(session.sessionId, { type: "notice", level: "warning", code: "turn_interrupted", message: `${why} The session continues here.` });
  return true;
}

/**
 * Resumes a session whose owner died mid-turn. When that turn was waiting for permission answers (the
 * questions the owner kept with its lease, for calls still without a result), the questions are asked
 * again here under the same request ids, so a tab still showing one can answer it, and the turn goes
 * on from there (see core's `resumeTurn`); otherwise the turn is closed as interrupted.
 */
export async function recoverTurn(session: LiveSession, bus: EventBus, previousOwner: string, questions: readonly PermissionRequest[]): Promise<void> {
  const calls = new Set(unansweredToolCalls(session.messages())?.calls.map((call) => call.id));
  const waiting = questions.filter((question) => calls.has(question.toolUseId));
  if (waiting.length === 0) {
    await recoverInterruptedTurn(session, bus, previousOwner);
    return;
  }
  bus.publish(session.sessionId, {
    type: "notice",
    level: "warning",
    code: "turn_resumed",
    message: `The server running this session (${previousOwner}) stopped while it waited for your permission; the session continues here and asks again.`,
  });
  session.resumeTurn(waiting);
}

/**
 * The mode and model the previous owner kept with the lease, back on the session (a mode this server
 * refuses, bypassPermissions where it is not allowed, stays at the default and the tabs are told).
 */
function restoreCarried(session: LiveSession, carried: CarriedState, modeAllowed: (mode: PermissionMode) => boolean, bus: EventBus): void {
  session.setModel(carried.model);
  if (modeAllowed(carried.permissionMode)) session.setMode(carried.permissionMode);
  else
    bus.publish(session.sessionId, {
      type: "notice",
      level: "warning",
      code: "mode_not_restored",
      message: `This server does not allow the permission mode ${carried.permissionMode}; the session continues in ${session.state().permissionMode}.`,
    });
}

/** The hub's side of session ownership: what happens here when a lease is taken or lost, and commands routed here. */
export function ownershipHost(hub: {
  live: Map<string, LiveSession>;
  bus: EventBus;
  load: (sessionId: string) => Promise<LiveSession>;
  sessions: SessionsPort & { sessionRules(sessionId: string): Promise<readonly string[]>; backfill(sessionId: string): Promise<SessionEvent[]> };
  /** This node owns the session now: keep its state with the lease from here on. */
  carry: (session: LiveSession) => void;
  modeAllowed: (mode: PermissionMode) => boolean;
}): OwnershipHost {
  const { live, bus } = hub;
  return {
    acquired: async (sessionId, acquisition) => {
      // Whatever this node had of the session was a follower's copy: the transcript is the truth now.
      const stale = live.get(sessionId);
      live.delete(sessionId);
      await stale?.close().catch(() => undefined);
      const session = await hub.load(sessionId).catch((error: unknown) => {
        // A session that is gone (its transcript deleted) has nothing to take over.
        if (error instanceof ApiError && error.code === "session_not_found") return undefined;
        throw error;
      });
      if (!session) return;
      const { carried } = acquisition;
      if (carried) restoreCarried(session, carried, hub.modeAllowed, bus);
      hub.carry(session);
      if (acquisition.crashed) await recoverTurn(session, bus, acquisition.previousOwner ?? "another node", carried?.waitingQuestions ?? []);
    },
    lost: (sessionId) => {
      bus.ownerLeft?.(sessionId);
      const session = live.get(sessionId);
      live.delete(sessionId);
      void session?.close().catch(() => undefined);
    },
    execute: (command) => executeSessionCommand(hub.sessions, command),
    watched: () => [...live.keys()].filter((sessionId) => bus.listenerCount(sessionId) > 0),
  };
}
