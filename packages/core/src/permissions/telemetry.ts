import type { DecisionReason, PermissionBehavior } from "../schema/permissions.ts";

/** OpenTelemetry's vocabulary for who decided, as Claude Code reports it. */
export type OTelDecisionSource = "user_temporary" | "user_permanent" | "user_reject" | "hook" | "config";

/**
 * Maps a decision reason to the OTel source: session rules are the user's temporary choice,
 * other rules permanent ones, any denial by rule or person a rejection; hooks are `hook`; modes,
 * classifiers, the workspace check and defaults are `config`.
 */
export function decisionReasonToOTelSource(reason: DecisionReason, behavior: PermissionBehavior): OTelDecisionSource {
  switch (reason.type) {
    case "rule":
      if (behavior === "deny") return "user_reject";
      if (behavior === "ask") return "config";
      return reason.source === "session" ? "user_temporary" : "user_permanent";
    case "user":
      if (reason.scope === "reject") return "user_reject";
      return reason.scope === "always" ? "user_permanent" : "user_temporary";
    case "hook":
      return "hook";
    case "mode":
    case "classifier":
    case "sandbox":
    case "workspace":
    case "tool":
    case "headless":
    case "default":
      return "config";
  }
}
