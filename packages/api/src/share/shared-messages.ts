import type { ConversationMessage } from "@cairn/core/schema";
import { titleOf } from "../hub/session-derive.ts";
import { ApiError } from "../router/errors.ts";
import type { Redactor } from "./redact.ts";
import type { ShareMode } from "./share-records.ts";

/** The main thread (no subagent sidechains), in order, up to and including `pin` when given. */
export function sharedMessages(messages: readonly ConversationMessage[], pin: string | null): ConversationMessage[] {
  const main = messages.filter((message) => message.isSidechain !== true);
  if (pin === null) return main;
  const at = main.findIndex((message) => message.uuid === pin);
  // A pin that is gone (the transcript changed) shows nothing rather than more than was shared.
  return at < 0 ? [] : main.slice(0, at + 1);
}

/** The message a new share pins: the given one (which must be on the main thread) or the last one; none for live shares. */
export function pinFor(mode: ShareMode, messages: readonly ConversationMessage[], messageUuid: string | undefined): string | null {
  if (mode === "live") return null;
  const main = sharedMessages(messages, null);
  if (messageUuid !== undefined) {
    if (!main.some((message) => message.uuid === messageUuid))
      throw new ApiError("message_not_found", `No message ${messageUuid} on this session's main thread`);
    return messageUuid;
  }
  return main.at(-1)?.uuid ?? null;
}

/** What a cut-off secret at the end of a shortened title starts with. */
const SECRET_START = /(?:^|\s)(?:sk-|sk_|rk_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abprs]-|AKIA|ASIA|AIza|npm_|eyJ|cairn_shr_|-----BEGIN)\S*\u2026$/;

/**
 * The title a viewer sees. A title made from the first prompt is cut at 80 characters, and a key cut
 * in half no longer has its full shape: so such a title is made again from the redacted prompt. Any
 * other title is redacted as it is, and a cut-off token of a known secret prefix at its end is dropped.
 */
export function sharedTitle(
  redactor: Redactor,
  title: string,
  messages: readonly ConversationMessage[],
  redactedMessages: readonly ConversationMessage[],
): string {
  // The cut may fall inside a marker: "[REDACTED:anthr…" reads better as "[REDACTED]…".
  if (titleOf(messages) === title) return (titleOf(redactedMessages) ?? redactor.redactText(title).text).replace(/\[REDACTED:[^\]]*\u2026$/, "[REDACTED]…");
  const redacted = redactor.redactText(title).text;
  return redacted.replace(SECRET_START, (match) => `${match.startsWith(" ") ? " " : ""}[REDACTED:truncated]…`);
}
