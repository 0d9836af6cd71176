import type { ToolUseBlock } from "../schema/content.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { AssistantMessage } from "../schema/messages.ts";
import { Channel } from "./channel.ts";
import { isCallConcurrencySafe } from "./partition.ts";
import { classifyToolError, errorMessage } from "./classify-error.ts";
import { runToolUse } from "./pipeline.ts";
import type { PipelineServices, ToolRunOutcome } from "./pipeline-types.ts";
import { buildOutcome } from "./tool-outcome.ts";
import type { ContextModifier, ToolUseContext } from "./tool.ts";

export type ExecutorItem = { kind: "event"; event: AgentEvent } | { kind: "outcome"; outcome: ToolRunOutcome; index: number };

type Entry = {
  block: ToolUseBlock;
  safe: boolean;
  batch: number;
  status: "queued" | "running" | "done";
  modifier?: ContextModifier;
  modifierApplied: boolean;
};

/**
 * Runs tool calls as they arrive, with `partitionToolCalls` semantics applied incrementally: a run of
 * consecutive concurrency-safe calls forms one batch whose calls run concurrently (up to `limit`), and
 * may start while the model is still streaming; any other call runs alone, after everything before it.
 * Context modifiers from a concurrent batch are queued and applied in call order once the batch is done;
 * a serial call's modifier applies as soon as it finishes. One failing call never cancels its siblings.
 */
export class StreamingToolExecutor {
  private readonly entries: Entry[] = [];
  private readonly channel = new Channel<ExecutorItem>();
  private running = 0;
  private closed = false;
  private batchCount = 0;
  private context: ToolUseContext;
  private readonly assistantMessage: AssistantMessage;
  private readonly services: PipelineServices;
  private readonly limit: number;
  private readonly firstBatch: number;
  private readonly onAbort = () => this.pump();

  constructor(context: ToolUseContext, assistantMessage: AssistantMessage, services: PipelineServices, limit: number, firstBatch: number) {
    this.context = context;
    this.assistantMessage = assistantMessage;
    this.services = services;
    this.limit = Math.max(1, limit);
    this.firstBatch = firstBatch;
    context.signal.addEventListener("abort", this.onAbort, { once: true });
  }

  get currentContext(): ToolUseContext {
    return this.context;
  }

  /** Batches used so far, so the next executor numbers its batches after these. */
  get batchesUsed(): number {
    return this.batchCount;
  }

  add(block: ToolUseBlock): void {
    const safe = isCallConcurrencySafe(this.context.tools, block);
    const last = this.entries.at(-1);
    const batch = safe && last?.safe ? last.batch : this.firstBatch + this.batchCount++;
    this.entries.push({ block, safe, batch, status: "queued", modifierApplied: false });
    this.pump();
  }

  /** No more calls will be added. */
  close(): void {
    this.closed = true;
    this.pump();
  }

  /** Items ready now, for interleaving with the model stream. */
  takeReady(): ExecutorItem[] {
    return this.channel.takeReady();
  }

  /** Everything still to come, until every call has finished. */
  async *remaining(): AsyncGenerator<ExecutorItem> {
    this.close();
    try {
      yield* this.channel;
    } finally {
      this.context.signal.removeEventListener("abort", this.onAbort);
    }
  }

  private pump(): void {
    const aborted = this.context.signal.aborted;
    for (let index = 0; index < this.entries.length; index++) {
      const entry = this.entries[index]!;
      if (entry.status === "done") continue;
      if (entry.status === "running") {
        if (!entry.safe && !aborted) break;
        continue;
      }
      // Once aborted, every waiting call starts at once: the pipeline answers each with an interrupted result.
      if (!aborted) {
        const earlierPending = this.entries.slice(0, index).some((other) => other.status !== "done");
        if (entry.safe) {
          if (this.entries.slice(0, index).some((other) => other.status !== "done" && !other.safe)) break;
          if (this.running >= this.limit) break;
        } else {
          if (earlierPending) break;
          this.applyQueuedModifiers(index);
        }
      }
      this.start(entry, index);
      if (!entry.safe && !aborted) break;
    }
    if (this.closed && this.entries.every((entry) => entry.status === "done")) {
      this.applyQueuedModifiers(this.entries.length);
      this.channel.close();
    }
  }

  private applyQueuedModifiers(before: number): void {
    for (const entry of this.entries.slice(0, before)) {
      if (entry.modifierApplied) continue;
      entry.modifierApplied = true;
      if (entry.modifier) this.context = entry.modifier(this.context);
    }
  }

  private start(entry: Entry, index: number): void {
    entry.status = "running";
    this.running++;
    void this.run(entry, index);
  }

  private async run(entry: Entry, index: number): Promise<void> {
    const startedAt = this.services.now();
    const generator = runToolUse(entry.block, this.assistantMessage, this.context, this.services, entry.batch);
    let outcome: ToolRunOutcome;
    try {
      while (true) {
        const step = await generator.next();
        if (step.done) {
          outcome = step.value;
          break;
        }
        this.channel.push({ kind: "event", event: step.value });
      }
    } catch (error) {
      // A hook runner or permission engine that throws must not take the session down with it.
      const origin = {
        block: entry.block,
        assistantMessage: this.assistantMessage,
        context: this.context,
        services: this.services,
        batch: entry.batch,
        startedAt,
        permissionWaitMs: 0,
      };
      outcome = buildOutcome(origin, `Error: ${errorMessage(error)}`, true, { errorClass: classifyToolError(error) });
    }
    entry.status = "done";
    this.running--;
    if (outcome.contextModifier) {
      entry.modifier = outcome.contextModifier;
      if (!entry.safe) {
        entry.modifierApplied = true;
        this.context = outcome.contextModifier(this.context);
      }
    } else if (!entry.safe) {
      entry.modifierApplied = true;
    }
    this.channel.push({ kind: "outcome", outcome, index });
    this.pump();
  }
}
