import type { AgentEvent } from "../schema/events.ts";
import type { ToolUseBlock } from "../schema/content.ts";
import type { UserMessage } from "../schema/messages.ts";
import type { ExecutorItem } from "../tools/executor.ts";
import type { MessageChain } from "./message-chain.ts";
import type { RunTally } from "./run-tally.ts";

/**
 * One turn's tool calls and their results, in transcript order: results that finish while the model
 * still streams wait until the assistant message is out, so the transcript always has a call before
 * its result.
 */
export class TurnToolResults {
  readonly calls: ToolUseBlock[] = [];
  readonly messages: UserMessage[] = [];
  readonly #early: ExecutorItem[] = [];
  #assistantOut = false;
  readonly #chain: MessageChain;
  readonly #tally: RunTally;

  constructor(chain: MessageChain, tally: RunTally) {
    this.#chain = chain;
    this.#tally = tally;
  }

  /** The executor's progress events pass at once; a finished call's result once the assistant message is out. */
  *drain(items: ExecutorItem[]): Generator<AgentEvent> {
    for (const item of items) {
      if (item.kind === "event") {
        yield item.event;
        continue;
      }
      if (!this.#assistantOut) {
        this.#early.push(item);
        continue;
      }
      const { outcome } = item;
      if (outcome.stop && !this.#tally.hookStop) this.#tally.hookStop = outcome.stop;
      if (outcome.record.classifierRequest) this.#tally.addClassifierRequest(outcome.record.classifierRequest);
      if (outcome.denied) {
        const call = this.calls.find((block) => block.id === outcome.record.toolUseId);
        this.#tally.denials.push({ toolName: outcome.record.name, toolUseId: outcome.record.toolUseId, input: call?.input });
      }
      yield { type: "tool-end", record: outcome.record };
      const message = this.#chain.link(outcome.message);
      this.messages.push(message);
      yield { type: "message", message };
    }
  }

  /** The assistant message is out: the results held back follow it now, and later ones as they finish. */
  *afterAssistant(): Generator<AgentEvent> {
    this.#assistantOut = true;
    yield* this.drain(this.#early.splice(0));
  }
}
