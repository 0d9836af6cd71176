import { estimateCostUsd } from "../model/pricing.ts";
import type { ModelCallRecord } from "../schema/messages.ts";
import type { ClassifierRequestRecord } from "../schema/permissions.ts";
import type { AgentEvent, Terminal } from "../schema/events.ts";
import { addUsage, emptyUsageTotals, type Usage, type UsageTotals } from "../schema/usage.ts";
import type { createTokenBudgetTracker } from "./token-budget.ts";

type PermissionDenial = { toolName: string; toolUseId: string; input: unknown };

/** What a run adds up as it goes, and the `result` event that reports it when the run ends. */
export class RunTally {
  usage: UsageTotals = emptyUsageTotals();
  readonly denials: PermissionDenial[] = [];
  /** A tool hook said `continue: false`: the run ends once the calls in flight have their results. */
  hookStop: { hookName: string; stopReason?: string } | null = null;
  #apiMs = 0;
  #classifier: { requests: number; usage: UsageTotals; costUsd: number } | null = null;
  readonly #startedAt: number;
  readonly #now: () => number;
  readonly #budget: ReturnType<typeof createTokenBudgetTracker> | null;

  constructor(now: () => number, budget: ReturnType<typeof createTokenBudgetTracker> | null) {
    this.#now = now;
    this.#startedAt = now();
    this.#budget = budget;
  }

  /** A model call's time counts whether it answered or failed. */
  addModelCall(record: ModelCallRecord): void {
    this.#apiMs += record.endedAt - record.startedAt;
  }

  addUsage(usage: Usage): void {
    this.usage = addUsage(this.usage, usage);
  }

  /** Auto mode's classifier requests: their own model, so kept apart from `usage` and priced one by one. */
  addClassifierRequest(request: ClassifierRequestRecord): void {
    const classifier = (this.#classifier ??= { requests: 0, usage: emptyUsageTotals(), costUsd: 0 });
    const usage = addUsage(emptyUsageTotals(), request.usage);
    classifier.requests++;
    classifier.usage = addUsage(classifier.usage, request.usage);
    classifier.costUsd += estimateCostUsd(request.model, usage);
  }

  result(terminal: Terminal): AgentEvent {
    return {
      type: "result",
      terminal,
      usage: this.usage,
      numTurns: terminal.turnCount,
      durationMs: this.#now() - this.#startedAt,
      durationApiMs: this.#apiMs,
      permissionDenials: this.denials,
      ...(this.#classifier ? { classifier: { ...this.#classifier } } : {}),
      ...(this.#budget ? { tokenBudget: this.#budget.status(this.usage.outputTokens) } : {}),
    };
  }
}
