import type { Fault, Scenario, Turn, TurnMatch } from "./scenario.ts";

/** What a turn's `match` looks at in a request. */
export type RequestFacts = { firstMessage: string; system: string; model: string | undefined };

/** Every condition the match gives must hold. */
function fits(match: TurnMatch | undefined, facts: RequestFacts | undefined): boolean {
  if (!match) return true;
  if (facts === undefined) return false;
  if (match.firstMessageIncludes !== undefined && !facts.firstMessage.includes(match.firstMessageIncludes)) return false;
  if (match.systemIncludes !== undefined && !facts.system.includes(match.systemIncludes)) return false;
  return match.model === undefined || facts.model === match.model;
}

export type TurnAssignment =
  | { kind: "turn"; turn: Turn; turnIndex: number; attempt: number; fault: Fault | undefined }
  | { kind: "exhausted"; turnCount: number; attempt: number };

/**
 * Walks a scenario: each request gets the first unused turn that fits it (a turn without `match`
 * fits every request) and that turn's next unused fault. A fault that ends the request leaves the
 * turn unused, so the retry sees the same turn.
 */
export class ScriptCursor {
  #scenario: Scenario;
  #used = new Set<number>();
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
    this.#used.clear();
    this.#faultsUsed.clear();
    this.#attempts.clear();
  }

  remaining(): number {
    return Math.max(0, this.#scenario.turns.length - this.#used.size);
  }

  /** Counts one more attempt against `turnIndex` (null = requests not tied to a turn). */
  countAttempt(turnIndex: number | null): number {
    const attempt = (this.#attempts.get(turnIndex) ?? 0) + 1;
    this.#attempts.set(turnIndex, attempt);
    return attempt;
  }

  next(facts?: RequestFacts): TurnAssignment {
    const turnIndex = this.#scenario.turns.findIndex((candidate, index) => !this.#used.has(index) && fits(candidate.match, facts));
    const turn = turnIndex >= 0 ? this.#scenario.turns[turnIndex] : undefined;
    if (!turn) {
      return { kind: "exhausted", turnCount: this.#scenario.turns.length, attempt: this.countAttempt(null) };
    }
    const faultsUsed = this.#faultsUsed.get(turnIndex) ?? 0;
    const fault = turn.faults?.[faultsUsed];
    if (fault) this.#faultsUsed.set(turnIndex, faultsUsed + 1);
    if (!fault || fault.kind === "stall") this.#used.add(turnIndex);
    return { kind: "turn", turn, turnIndex, attempt: this.countAttempt(turnIndex), fault };
  }
}
