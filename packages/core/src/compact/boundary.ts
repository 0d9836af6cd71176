import type { AssistantMessage, ConversationMessage, SystemMessage, UserMessage } from "../schema/messages.ts";
import type { CompactAttachmentFields, KeptCopyFields } from "./conversation.ts";
import type { CompactTrigger } from "./types.ts";

export type CompactedConversation = {
  boundary: SystemMessage;
  summary: UserMessage;
  kept: ConversationMessage[];
  attachment: UserMessage | null;
  /** boundary, summary, kept copies, attachment: the new lines, in chain order. */
  messages: ConversationMessage[];
};

export type BuildCompactedOptions = {
  trigger: CompactTrigger;
  preTokens: number;
  /** The context compacted away in the whole conversation, this compaction included. */
  compactedTokens: number;
  summarized: readonly ConversationMessage[];
  keep: readonly ConversationMessage[];
  summaryText: string;
  attachmentText: string | null;
  uuid: () => string;
  timestamp: string;
  /** A subagent's conversation: its new lines carry its id and the sidechain flag, as the rest of it does. */
  agentId?: string;
};

/**
 * Re-writes a kept message after the boundary: a new uuid chained to the one before, `keptFrom`
 * naming the original. Usage, timing and tool-call records stay with the original, so cost and the
 * timeline count them once, and a kept response's usage is never read as the size of a request
 * made after the compaction. The response id is made unique for the same reason.
 */
function copyKept(message: ConversationMessage, uuid: string, parentUuid: string, renamed: ReadonlyMap<string, string>): ConversationMessage {
  const keptFrom = (message as KeptCopyFields).keptFrom ?? message.uuid;
  if (message.type === "assistant") {
    const { modelCall: _modelCall, ...rest } = message;
    const { usage: _usage, ...body } = message.message;
    const id = body.id.replace(/#kept-.*$/, "");
    const copy: AssistantMessage & KeptCopyFields = { ...rest, uuid, parentUuid, keptFrom, message: { ...body, id: `${id}#kept-${uuid}` } };
    return copy;
  }
  if (message.type === "user") {
    const { toolCall: _toolCall, ...rest } = message;
    const source = rest.sourceToolAssistantUUID === undefined ? undefined : renamed.get(rest.sourceToolAssistantUUID);
    const copy: UserMessage & KeptCopyFields = { ...rest, uuid, parentUuid, keptFrom, ...(source ? { sourceToolAssistantUUID: source } : {}) };
    return copy;
  }
  return { ...message, uuid, parentUuid, keptFrom } as SystemMessage & KeptCopyFields;
}

/** The conversation after a compaction: boundary → summary → kept recent messages → re-attached context. */
export function buildCompactedConversation(options: BuildCompactedOptions): CompactedConversation {
  const { timestamp } = options;
  const sidechain = options.agentId === undefined ? {} : { agentId: options.agentId, isSidechain: true };
  const boundary: SystemMessage = {
    ...sidechain,
    type: "system",
    subtype: "compact_boundary",
    uuid: options.uuid(),
    parentUuid: null,
    logicalParentUuid: options.summarized.at(-1)?.uuid ?? null,
    timestamp,
    content: "Conversation compacted",
    level: "info",
    isMeta: false,
    compactMetadata: {
      trigger: options.trigger,
      preTokens: options.preTokens,
      postTokens: 0,
      summarizedUuids: options.summarized.map((message) => message.uuid),
      compactedTokens: options.compactedTokens,
    },
  };
  const summary: UserMessage = {
    ...sidechain,
    type: "user",
    uuid: options.uuid(),
    parentUuid: boundary.uuid,
    timestamp,
    isCompactSummary: true,
    isVisibleInTranscriptOnly: true,
    message: { role: "user", content: options.summaryText },
  };
  const renamed = new Map<string, string>();
  const kept: ConversationMessage[] = [];
  let parentUuid = summary.uuid;
  for (const message of options.keep) {
    const copy = copyKept(message, options.uuid(), parentUuid, renamed);
    renamed.set(message.uuid, copy.uuid);
    kept.push(copy);
    parentUuid = copy.uuid;
  }
  let attachment: UserMessage | null = null;
  if (options.attachmentText !== null) {
    const meta: UserMessage & CompactAttachmentFields = {
      ...sidechain,
      type: "user",
      uuid: options.uuid(),
      parentUuid,
      timestamp,
      isMeta: true,
      isCompactAttachment: true,
      message: { role: "user", content: options.attachmentText },
    };
    attachment = meta;
  }
  return { boundary, summary, kept, attachment, messages: [boundary, summary, ...kept, ...(attachment ? [attachment] : [])] };
}
