import { ApiError } from "../router/errors.ts";
import type { PendingPrompt } from "./session-prompt-run.ts";

export const DEFAULT_MAX_QUEUED_PROMPTS = 10;

type ActiveRun = { controller: AbortController; done: Promise<void> };

type SessionRunQueueOptions = {
  maxQueued?: number | undefined;
  /** Starts `prompt` as the next run (the session calls `begin` with it). */
  start: (prompt: PendingPrompt) => void;
  /** A run began, or the queue's length changed. */
  onChange: () => void;
  /** A run ended and nothing was queued behind it; `aborted` when the user interrupted it. */
  onIdle: (aborted: boolean) => void;
};

/** A session's one active run (a prompt or a compaction) and the FIFO of prompts waiting behind it. */
export class SessionRunQueue {
  private readonly waiting: PendingPrompt[] = [];
  private readonly maxQueued: number;
  private readonly options: SessionRunQueueOptions;
  private active: ActiveRun | undefined;

  constructor(options: SessionRunQueueOptions) {
    this.options = options;
    this.maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED_PROMPTS;
  }

  get running(): boolean {
    return this.active !== undefined;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Starts the prompt now, or queues it behind the running one. */
  enqueue(prompt: PendingPrompt): { queued: boolean; position: number } {
    if (!this.active) {
      this.options.start(prompt);
      return { queued: false, position: 0 };
    }
    if (this.waiting.length >= this.maxQueued) {
      throw new ApiError("queue_full", `${this.waiting.length} prompts are already waiting; interrupt or wait for the run to end`);
    }
    this.waiting.push(prompt);
    this.options.onChange();
    return { queued: true, position: this.waiting.length };
  }

  /** Aborts the running task and drops the queued prompts. */
  interrupt(): boolean {
    const dropped = this.waiting.splice(0).length;
    if (!this.active) {
      if (dropped > 0) this.options.onChange();
      return dropped > 0;
    }
    this.active.controller.abort(new Error("Interrupted by the user"));
    return true;
  }

  /** Resolves when no task runs (queued prompts included). */
  async idle(): Promise<void> {
    while (this.active) await this.active.done;
  }

  /** Runs `task` as the session's one active run; queued prompts follow it. */
  begin(task: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const controller = new AbortController();
    const run: ActiveRun = { controller, done: Promise.resolve() };
    this.active = run;
    this.options.onChange();
    run.done = task(controller.signal).finally(() => {
      this.active = undefined;
      const next = this.waiting.shift();
      if (next !== undefined) return this.options.start(next);
      this.options.onIdle(controller.signal.aborted);
    });
    return run.done;
  }
}
