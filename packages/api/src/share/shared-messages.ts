import type { ConversationMessage } from "@cairn/core/schema";
import { ApiError } from "../router/errors.ts";
import type { ShareMode } from "./share-store.ts";

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
    if (!main.some((message) => message.uuid === messageUuid)) throw new ApiError("message_not_found", `No message ${messageUuid} on this session's main thread`);
    return messageUuid;
  }
  return main.at(-1)?.uuid ?? null;
}
