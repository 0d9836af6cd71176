import type { ClassifierRequestRecord, DecisionReason } from "../../schema/permissions.ts";
import type { DenialTracking } from "../../state/app-state.ts";
import { AUTO_MODE_CLASSIFIER, type DenialLimits } from "../denial-tracking.ts";
import type { PermissionCheckResult } from "../port.ts";
import { ClassifierError, type ActionClassifier, type ClassifierAction, type ClassifierVerdict } from "./classifier-port.ts";

type Decision = Exclude<PermissionCheckResult, { behavior: "passthrough" }>;
type AskDecision = Extract<Decision, { behavior: "ask" }>;

export type AutoModeJudgeOptions = {
  classifier: ActionClassifier;
  /** Read per decision, so reloaded settings apply at once. */
  timeoutMs(): number;
  limits(): DenialLimits;
  denials(): DenialTracking;
  /** Verdicts kept per session (least recently used go first); default 500. */
  cacheSize?: number;
};

/** What auto mode is asked to judge: the call's identity, and the rest built only when the classifier runs. */
export type AutoModeCall = {
  toolName: string;
  input: unknown;
  cwd: string;
  /** The ask the rules ended with: its suggestions and message are kept when auto mode asks too. */
  ask: AskDecision;
  buildAction(): ClassifierAction;
  signal: AbortSignal;
};

export type AutoModeJudge = { judge(call: AutoModeCall): Promise<Decision> };

const reasonOf = (reason: string): DecisionReason => ({ type: "classifier", classifier: AUTO_MODE_CLASSIFIER, reason });

/** The rules' ask, with auto mode's reason for not deciding it (in the prompt, and told to the model when nobody can answer). */
const asking = (call: AutoModeCall, why: string, request?: ClassifierRequestRecord): AskDecision => ({
  ...call.ask,
  reason: reasonOf(why),
  message: `${call.ask.message ?? `Allow ${call.toolName}?`} (Auto mode: ${why}.)`,
  ...(request ? { classifierRequest: request } : {}),
});

/** Object keys sorted, so `{a, b}` and `{b, a}` are the same action. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${stableJson(field)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * How long a timed-out classifier may take to settle after its abort and hand back its request record. An aborted
 * request settles at once on an idle machine; at load 20 on 2 cores it took over 250 ms, and its usage went uncounted.
 * Only a classifier that ignores its signal ever waits this long.
 */
const ABANDONED_REQUEST_GRACE_MS = 1_000;

/** The request record of a classification given up on: what it settles with shortly after its abort, if anything. */
async function requestOfAbandoned(classifying: Promise<ClassifierVerdict>): Promise<ClassifierRequestRecord | undefined> {
  let endGrace: () => void = () => undefined;
  const grace = new Promise<undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ABANDONED_REQUEST_GRACE_MS);
    endGrace = () => clearTimeout(timer);
  });
  const settled = classifying.then(
    (verdict) => verdict.request,
    (error: unknown) => (error instanceof ClassifierError ? error.request : undefined),
  );
  try {
    return await Promise.race([settled, grace]);
  } finally {
    endGrace();
  }
}

/**
 * Auto mode: a classifier decides what no rule, hook or mode decided. It fails safe (a timeout, an API
 * error or an answer it cannot parse means ask), remembers verdicts for identical actions within the
 * session, and after too many of its denials (in a row, or in all) stops deciding and asks the user.
 */
export function createAutoModeJudge(options: AutoModeJudgeOptions): AutoModeJudge {
  const cache = new Map<string, ClassifierVerdict>();
  const cacheSize = options.cacheSize ?? 500;

  const remember = (key: string, verdict: ClassifierVerdict) => {
    cache.delete(key);
    cache.set(key, verdict);
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
  };

  const fallbackReason = (): string | undefined => {
    const denials = options.denials();
    const limits = options.limits();
    if (denials.classifierConsecutive >= limits.maxConsecutive) {
      return `the classifier denied ${denials.classifierConsecutive} calls in a row (limit ${limits.maxConsecutive}), so auto mode asks you instead`;
    }
    if (denials.classifierTotal >= limits.maxTotal) {
      return `the classifier denied ${denials.classifierTotal} calls in this session (limit ${limits.maxTotal}), so auto mode asks you instead`;
    }
    return undefined;
  };

  const classify = async (call: AutoModeCall): Promise<ClassifierVerdict> => {
    const timeoutMs = options.timeoutMs();
    const controller = new AbortController();
    let timedOut = false;
    let rejectStop: (error: Error) => void = () => undefined;
    const stopped = new Promise<never>((_resolve, reject) => {
      rejectStop = reject;
    });
    const stop = () => {
      controller.abort();
      rejectStop(timedOut ? new ClassifierError("timeout", `no answer within ${timeoutMs} ms`) : new ClassifierError("aborted", "the call was cancelled"));
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    if (call.signal.aborted) stop();
    else call.signal.addEventListener("abort", stop, { once: true });
    const classifying = options.classifier.classify(call.buildAction(), controller.signal);
    try {
      // A classifier that ignores its signal still cannot hold the call past the timeout.
      return await Promise.race([classifying, stopped]);
    } catch (error) {
      if (!timedOut) throw error;
      // The request was sent and may have been charged for (its message_start reports the input tokens): the aborted
      // classifier hands its record back at once, so the timeout is counted like any other request.
      const request = await requestOfAbandoned(classifying);
      throw new ClassifierError("timeout", `no answer within ${timeoutMs} ms`, {
        cause: error,
        ...(request ? { request: { ...request, failure: "timeout" } } : {}),
      });
    } finally {
      clearTimeout(timer);
      call.signal.removeEventListener("abort", stop);
      stopped.catch(() => undefined);
    }
  };

  /** A fresh verdict carries its model request (counted in the session's usage); a cached one made none. */
  const decisionOf = (call: AutoModeCall, verdict: ClassifierVerdict, note = ""): Decision => {
    const reason = reasonOf(`${verdict.reason}${note}`);
    const request = verdict.request ? { classifierRequest: verdict.request } : {};
    switch (verdict.behavior) {
      case "allow":
        return { behavior: "allow", reason, ...request };
      case "deny":
        return {
          behavior: "deny",
          reason,
          message: `Auto mode's classifier refused this ${call.toolName} call: ${verdict.reason}. Do not retry it; find another way or ask the user.`,
          ...request,
        };
      case "ask":
        return { ...call.ask, reason, message: `Auto mode's classifier asks before this ${call.toolName} call: ${verdict.reason}`, ...request };
    }
  };

  return {
    async judge(call) {
      const fallback = fallbackReason();
      if (fallback) return asking(call, fallback);
      const key = `${call.toolName}\u0000${call.cwd}\u0000${stableJson(call.input)}`;
      const cached = cache.get(key);
      if (cached) {
        remember(key, cached);
        return decisionOf(call, { behavior: cached.behavior, reason: cached.reason }, " (cached)");
      }
      let verdict: ClassifierVerdict;
      try {
        verdict = await classify(call);
      } catch (error) {
        const why = error instanceof ClassifierError ? `${error.code}: ${error.message}` : `error: ${error instanceof Error ? error.message : String(error)}`;
        return asking(call, `the classifier could not decide (${why}), so auto mode asks you`, error instanceof ClassifierError ? error.request : undefined);
      }
      remember(key, verdict);
      return decisionOf(call, verdict);
    },
  };
}
