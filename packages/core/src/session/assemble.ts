import type { ContentBlock } from "../schema/content.ts";
import { conversationMessageSchema, type AssistantMessage, type ConversationMessage, type UserMessage } from "../schema/messages.ts";
import { isRecord } from "./transcript-index.ts";

/** Fields the transcript envelope adds to every line; they describe the file, not the message. */
const ENVELOPE_FIELDS = ["sessionId", "cwd", "version", "userType", "gitBranch", "cairnSchema"] as const;

/**
 * Pass two of the loader: turns the planned lines (already JSON-parsed, in file order) into
 * conversation messages. Claude Code's per-block assistant lines sharing a response (group) become
 * one AssistantMessage holding all the blocks, at the position of its first line, under the uuid of
 * its last line (the one later lines hang off). A second result for the same tool_use is dropped.
 */
export class ConversationAssembler {
  private readonly messages: ConversationMessage[] = [];
  private readonly groupPosition = new Map<number, number>();
  private readonly answeredToolUses = new Set<string>();
  /** Tool uses of dropped responses: their results go too. */
  private readonly droppedToolUses = new Set<string>();
  invalidMessages = 0;

  private readonly droppedResponseIds: ReadonlySet<string>;

  /** `droppedResponseIds`: message ids named by tombstones; those responses are left out. */
  constructor(droppedResponseIds: ReadonlySet<string> = new Set()) {
    this.droppedResponseIds = droppedResponseIds;
  }

  add(value: unknown, group: number): void {
    if (!isRecord(value)) {
      this.invalidMessages++;
      return;
    }
    const stripped: Record<string, unknown> = { ...value };
    for (const field of ENVELOPE_FIELDS) delete stripped[field];
    const parsed = conversationMessageSchema.safeParse(stripped);
    if (!parsed.success) {
      this.invalidMessages++;
      return;
    }
    const message = parsed.data;
    if (message.type === "assistant" && this.droppedResponseIds.has(message.message.id)) {
      for (const block of message.message.content) if (block.type === "tool_use") this.droppedToolUses.add(block.id);
      return;
    }
    if (message.type === "assistant" && group >= 0) {
      const position = this.groupPosition.get(group);
      if (position !== undefined) {
        this.mergeInto(position, message);
        return;
      }
      this.groupPosition.set(group, this.messages.length);
    }
    if (message.type === "user") {
      const kept = this.withoutAnsweredResults(message);
      if (kept === undefined) return;
      this.messages.push(kept);
      return;
    }
    this.messages.push(message);
  }

  finish(): ConversationMessage[] {
    return this.messages;
  }

  private mergeInto(position: number, next: AssistantMessage): void {
    const current = this.messages[position] as AssistantMessage;
    const seenToolUses = new Set(current.message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : [])));
    const added = next.message.content.filter((block) => block.type !== "tool_use" || !seenToolUses.has(block.id));
    this.messages[position] = {
      ...current,
      uuid: next.uuid,
      message: {
        ...current.message,
        content: [...current.message.content, ...added],
        stop_reason: next.message.stop_reason ?? current.message.stop_reason,
        usage: next.message.usage ?? current.message.usage,
      },
    };
  }

  private withoutAnsweredResults(message: UserMessage): UserMessage | undefined {
    const content = message.message.content;
    if (typeof content === "string") return message;
    let changed = false;
    const kept: ContentBlock[] = [];
    for (const block of content) {
      if (block.type === "tool_result") {
        if (this.answeredToolUses.has(block.tool_use_id) || this.droppedToolUses.has(block.tool_use_id)) {
          changed = true;
          continue;
        }
        this.answeredToolUses.add(block.tool_use_id);
      }
      kept.push(block);
    }
    if (!changed) return message;
    if (kept.length === 0) return undefined;
    return { ...message, message: { ...message.message, content: kept } };
  }
}
