import type { SessionsPort } from "../router/context.ts";
import type { SessionEvent } from "../router/types.ts";
import type { SessionCommand } from "./session-ownership.ts";

/** Runs a command another node routed here, through the same hub methods a local request uses; the result is JSON. */
export async function executeSessionCommand(
  sessions: SessionsPort & { sessionRules(sessionId: string): Promise<readonly string[]>; backfill(sessionId: string): Promise<SessionEvent[]> },
  command: SessionCommand,
): Promise<unknown> {
  switch (command.kind) {
    case "send":
      return sessions.send(command.sessionId, command.prompt);
    case "interrupt":
      return sessions.interrupt(command.sessionId);
    case "respond":
      return sessions.respond(command.sessionId, command.requestId, command.answer);
    case "set-mode":
      await sessions.setMode(command.sessionId, command.mode);
      return null;
    case "set-model":
      await sessions.setModel(command.sessionId, command.model);
      return null;
    case "get":
      return sessions.get(command.sessionId);
    case "backfill":
      return sessions.backfill(command.sessionId);
    case "compact":
      return sessions.compact(command.sessionId, command.instructions);
    case "fork":
      return sessions.fork(command.sessionId, command.messageUuid);
    case "rewind":
      return sessions.rewind(command.sessionId, command.messageUuid, command.mode);
    case "rewind-preview":
      return sessions.rewindPreview(command.sessionId, command.messageUuid);
    case "add-rule":
      await sessions.addSessionRule(command.sessionId, command.behavior, command.rule);
      return null;
    case "remove-rule":
      return sessions.removeSessionRule(command.sessionId, command.behavior, command.rule);
    case "rules":
      return sessions.sessionRules(command.sessionId);
  }
}
