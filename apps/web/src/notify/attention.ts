import type { SessionEvent } from "../trpc/types.ts";

/** Why the session wants the user back: a question is waiting, the run ended, or an error stopped it. */
export type AttentionKind = "permission" | "ended" | "error";
export type Attention = { kind: AttentionKind; title: string; body: string };

/** Runs that end this way stopped on an error (the others ended normally; an interrupt is the user's own doing). */
const ERROR_REASONS = new Set(["model_error", "prompt_too_long", "blocking_limit"]);
const ABORT_REASONS = new Set(["aborted_streaming", "aborted_tools"]);

/** What, if anything, a live session event should tell a user who is looking at another tab. */
export function attentionOf(event: SessionEvent): Attention | null {
  if (event.type === "permission-request") {
    return { kind: "permission", title: "Cairn needs your permission", body: `The agent wants to use ${event.toolName}.` };
  }
  if (event.type !== "result") return null;
  const { reason, error } = event.terminal;
  if (ABORT_REASONS.has(reason)) return null;
  if (ERROR_REASONS.has(reason)) return { kind: "error", title: "Cairn stopped on an error", body: error?.message ?? reason.replaceAll("_", " ") };
  return {
    kind: "ended",
    title: "Cairn finished",
    body: reason === "completed" ? "The agent's run has ended." : `The run ended: ${reason.replaceAll("_", " ")}.`,
  };
}

/** `(3) Cairn`: the page title with the number of things waiting while the tab was hidden. */
export function titleWithBadge(baseTitle: string, count: number): string {
  return count > 0 ? `(${count}) ${baseTitle}` : baseTitle;
}
