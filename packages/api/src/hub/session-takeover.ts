import { randomUUID } from "node:crypto";
import { INTERRUPTED_TOOL_RESULT } from "@cairn/core";
import type { ConversationMessage, ToolResultBlock } from "@cairn/core/schema";
import type { SessionsPort } from "../router/context.ts";
import { ApiError } from "../router/errors.ts";
import type { EventBus } from "./event-bus.ts";
import type { LiveSession } from "./live-session.ts";
import { executeSessionCommand } from "./session-command.ts";
import { metaNote } from "./session-derive.ts";
import type { OwnershipHost } from "./session-ownership.ts";

/** What a dead owner left of its last turn: nothing (the turn ended), or an unfinished turn and its tool calls without a result. */
export type UnfinishedTurn = { unfinished: false } | { unfinished: true; lastUuid: string; missingResults: string[] };

/**
 * Whether the conversation stops mid-turn: after the prompt or tool results (the model was being
 * called), or after a response whose tool calls have no result yet (they ran, or waited for a
 * permission answer). A response without tool calls, or nothing at all, ends a turn.
 */
export function unfinishedTurn(history: readonly ConversationMessage[]): UnfinishedTurn {
  const last = history.at(-1);
  if (!last || last.type === "system") return { unfinished: false };
  if (last.type === "user") return { unfinished: true, lastUuid: last.uuid, missingResults: [] };
  const toolUses = last.message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
  if (toolUses.length === 0) return { unfinished: false };
  return { unfinished: true, lastUuid: last.uuid, missingResults: toolUses };
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

/** The hub's side of session ownership: what happens here when a lease is taken or lost, and commands routed here. */
export function ownershipHost(hub: {
  live: Map<string, LiveSession>;
  bus: EventBus;
  load: (sessionId: string) => Promise<LiveSession>;
  sessions: SessionsPort;
}): OwnershipHost {
  const { live, bus } = hub;
  return {
    acquired: async (sessionId, acquisition) => {
      // Whatever this node had of the session was a follower's copy: the transcript is the truth now.
      const stale = live.get(sessionId);
      live.delete(sessionId);
      await stale?.close().catch(() => undefined);
      const session = await hub.load(sessionId).catch((error: unknown) => {
        // A session created elsewhere that never wrote a line has nothing to take over.
        if (error instanceof ApiError && error.code === "session_not_found") return undefined;
        throw error;
      });
      if (session && acquisition.crashed) await recoverInterruptedTurn(session, bus, acquisition.previousOwner ?? "another node");
    },
    lost: (sessionId) => {
      const session = live.get(sessionId);
      live.delete(sessionId);
      void session?.close().catch(() => undefined);
    },
    execute: (command) => executeSessionCommand(hub.sessions, command),
    watched: () => [...live.keys()].filter((sessionId) => bus.listenerCount(sessionId) > 0),
  };
}
