import type { DecisionReason } from "../schema/permissions.ts";
import type { AppState } from "../state/app-state.ts";

// Denial tracking as the reference describes it (5.5): per-session counters of consecutive and
// total denials, reset of the consecutive count by any allowed call, rule suggestions at chosen
// counts of one tool-and-pattern, and, for the auto-mode classifier, a fallback to asking a person
// after too many of its denials.

export type DenialLimits = {
  /** Denials of one tool-and-pattern at which a rule is suggested. */
  suggestAfter: readonly number[];
  /** Classifier denials in a row after which auto mode asks instead. */
  maxConsecutive: number;
  /** Classifier denials in a session after which auto mode asks instead. */
  maxTotal: number;
};

export const defaultDenialLimits: DenialLimits = { suggestAfter: [1, 3, 5], maxConsecutive: 3, maxTotal: 20 };

/** The classifier name the auto-mode decisions carry (`reason.classifier`). */
export const AUTO_MODE_CLASSIFIER = "auto-mode";

export const isClassifierDenial = (reason: DecisionReason): boolean => reason.type === "classifier" && reason.classifier === AUTO_MODE_CLASSIFIER;

type Denials = AppState["denials"];

/** One more denial; returns the new state and the count for `key`. */
export function withDenial(denials: Denials, key: string, reason: DecisionReason): { denials: Denials; count: number } {
  const count = (denials.byPattern[key] ?? 0) + 1;
  const classifier = isClassifierDenial(reason);
  return {
    count,
    denials: {
      consecutive: denials.consecutive + 1,
      total: denials.total + 1,
      classifierConsecutive: classifier ? denials.classifierConsecutive + 1 : denials.classifierConsecutive,
      classifierTotal: classifier ? denials.classifierTotal + 1 : denials.classifierTotal,
      byPattern: { ...denials.byPattern, [key]: count },
    },
  };
}

/** An allowed call ends a run of denials; the same object when there was none (no state churn). */
export function withAllow(denials: Denials): Denials {
  if (denials.consecutive === 0 && denials.classifierConsecutive === 0) return denials;
  return { ...denials, consecutive: 0, classifierConsecutive: 0 };
}

/**
 * Denials after which no allow rule is suggested: a deny rule (it beats any allow rule), a hook and
 * plan mode (which refuses before allow rules are read) could not be lifted by one, and a headless
 * denial (print mode) has nobody to take the offer.
 */
export function denialRulesCannotLift(reason: DecisionReason): boolean {
  if (reason.type === "rule") return reason.behavior === "deny";
  if (reason.type === "hook" || reason.type === "headless") return true;
  return reason.type === "mode" && reason.mode === "plan";
}
