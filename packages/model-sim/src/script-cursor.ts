import type { Fault, Scenario, Turn } from "./scenario.ts";

export type TurnAssignment =
  | { kind: "turn"; turn: Turn; turnIndex: number; attempt: number; fault: Fault | undefined }
  | { kind: "exhausted"; turnCount: number; attempt: number };

/**
 * Walks a scenario: each request gets the current turn and that turn's next unused fault.
 * A fault that ends the request leaves the cursor where it is, so the retry sees the same turn.
 */
export class ScriptCursor {
  #scenario: Scenario;
  #turnIndex = 0;
  #faultsUsed = new Map<number, number>();
  #attempts = new Map<number | null, number>();

  constructor(scenario: Scenario) {
    this.#scenario = scenario;
  }

  replace(scenario: Scenario): void {
    this.#scenario = scenario;
    this.rewind();
  }

  rewind(): void {
    this.#turnIndex = 0;
    this.#faultsUsed.clear();
    this.#attempts.clear();
  }

  remaining(): number {
    return Math.max(0, this.#scenario.turns.length - this.#turnIndex);
  }

  /** Counts one more attempt against `turnIndex` (null = requests not tied to a turn). */
  countAttempt(turnIndex: number | null): number {
    const attempt = (this.#attempts.get(turnIndex) ?? 0) + 1;
    this.#attempts.set(turnIndex, attempt);
    return attempt;
  }

  next(): TurnAssignment {
    const turnIndex = this.#turnIndex;
    const turn = this.#scenario.turns[turnIndex];
    if (!turn) {
      return { kind: "exhausted", turnCount: this.#scenario.turns.length, attempt: this.countAttempt(null) };
    }
    const faultsUsed = this.#faultsUsed.get(turnIndex) ?? 0;
    const fault = turn.faults?.[faultsUsed];
    if (fault) this.#faultsUsed.set(turnIndex, faultsUsed + 1);
    if (!fault || fault.kind === "stall") this.#turnIndex += 1;
    return { kind: "turn", turn, turnIndex, attempt: this.countAttempt(turnIndex), fault };
  }
}
