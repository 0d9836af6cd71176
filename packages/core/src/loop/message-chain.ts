import type { ConversationMessage, UserMessage } from "../schema/messages.ts";
import { createUserMessage } from "./messages.ts";

export type MessageChainOptions = {
  uuid: () => string;
  /** ISO time for the meta lines it makes. */
  timestamp: () => string;
  /** A subagent's lines are marked with its id and kept off the main chain. */
  agentId?: string | undefined;
};

/**
 * The thread of a run's messages: each new message's `parentUuid` is the last one linked (unless it
 * names its own), and meta lines (notes to the model, hook context) are made already linked.
 */
export class MessageChain {
  #last: string | null;
  readonly #options: MessageChainOptions;

  constructor(last: string | null, options: MessageChainOptions) {
    this.#last = last;
    this.#options = options;
  }

  /** The uuid the next message hangs from. */
  get last(): string | null {
    return this.#last;
  }

  link<T extends ConversationMessage>(message: T): T {
    const linked = { ...message, parentUuid: message.parentUuid === undefined ? this.#last : message.parentUuid };
    this.#last = linked.uuid;
    return linked;
  }

  /** Continues after a message the chain did not link (the last one of a compacted conversation); undefined keeps the place. */
  continueAfter(message: ConversationMessage | undefined): void {
    this.#last = message?.uuid ?? this.#last;
  }

  /** A meta user line (`isMeta`): text for the model that the user did not type. */
  meta(text: string): UserMessage {
    const { agentId } = this.#options;
    return this.link(
      createUserMessage({
        uuid: this.#options.uuid(),
        timestamp: this.#options.timestamp(),
        parentUuid: this.#last,
        content: text,
        isMeta: true,
        ...(agentId ? { agentId, isSidechain: true } : {}),
      }),
    );
  }
}
