import { renderSlashHelp, type SkillCatalog, type SlashInvocation } from "@cairn/core";
import type { PermissionMode } from "@cairn/core/schema";
import { ApiError } from "../router/errors.ts";
import type { SendResult } from "../router/types.ts";
import type { LiveSession } from "./live-session.ts";

/** What `/clear` needs of the hub: a new session with the old one's model and mode, its `SessionStart` source `clear`. */
type NewSession = (options: { model: string; permissionMode: PermissionMode; startSource: "clear" }) => Promise<{ sessionId: string }>;

/** Runs a resolved `/<name> [args]` on a live session: a skill's prompt, or a built-in (compact, clear, model, help) answered at once. */
export async function runSlashCommand(session: LiveSession, slash: SlashInvocation, catalog: SkillCatalog, createSession: NewSession): Promise<SendResult> {
  const done = (command: NonNullable<SendResult["command"]>): SendResult => ({ queued: false, position: 0, command });
  switch (slash.kind) {
    case "error":
      throw new ApiError("unknown_command", slash.message);
    case "skill":
      return session.sendSkill(slash.skill, slash.args);
    case "builtin":
      switch (slash.name) {
        case "compact": {
          const result = await session.compact(slash.args || undefined);
          return done({ name: "compact", message: `Compacted the conversation: ${result.preTokens} → ${result.postTokens} tokens.` });
        }
        case "clear": {
          const state = session.store.getState();
          // As Claude Code's /clear: SessionEnd (reason clear) for this session, SessionStart (source clear) for the new one.
          await session.endForClear();
          const created = await createSession({ model: state.model, permissionMode: state.permissionMode, startSource: "clear" });
          return done({ name: "clear", message: "Started a new session.", sessionId: created.sessionId });
        }
        case "model":
          session.setModel(slash.args);
          return done({ name: "model", message: `Model set to ${slash.args}.` });
        case "help":
          return done({ name: "help", message: renderSlashHelp(catalog) });
      }
  }
}
