import { describe, expect, test } from "vitest";
import { initialDenialTracking, type DenialTracking } from "../../state/app-state.ts";
import { defaultDenialLimits } from "../denial-tracking.ts";
import { createAutoModeJudge, type AutoModeCall } from "./auto-mode-judge.ts";
import { ClassifierError, type ActionClassifier, type ClassifierAction, type ClassifierVerdict } from "./classifier-port.ts";

function fakeClassifier(answer: (action: ClassifierAction, signal: AbortSignal) => Promise<ClassifierVerdict>) {
  const actions: ClassifierAction[] = [];
  const classifier: ActionClassifier = {
    classify(action, signal) {
      actions.push(action);
      return answer(action, signal);
    },
  };
  return { classifier, actions };
}

function judgeWith(classifier: ActionClassifier, options: { timeoutMs?: number; denials?: Partial<DenialTracking> } = {}) {
  return createAutoModeJudge({
    classifier,
    timeoutMs: () => options.timeoutMs ?? 1_000,
    limits: () => defaultDenialLimits,
    denials: () => ({ ...initialDenialTracking, ...options.denials }),
  });
}

function call(input: Record<string, unknown>, signal = new AbortController().signal): AutoModeCall {
  return {
    toolName: "Bash",
    input,
    cwd: "/ws",
    ask: { behavior: "ask", reason: { type: "default", reason: "no rule allows it" }, message: "Allow?", suggestions: ["Bash(npm test:*)"] },
    buildAction: () => ({ toolName: "Bash", input, cwd: "/ws", userRequests: ["run the tests"] }),
    signal,
  };
}

describe("auto mode's judge", () => {
  test("turns the classifier's verdicts into decisions with the source classifier and its reason", async () => {
    for (const behavior of ["allow", "deny", "ask"] as const) {
      const { classifier } = fakeClassifier(async () => ({ behavior, reason: `verdict ${behavior}` }));
      const decision = await judgeWith(classifier).judge(call({ command: "npm test" }));
      expect(decision).toMatchObject({ behavior, reason: { type: "classifier", classifier: "auto-mode", reason: `verdict ${behavior}` } });
      if (decision.behavior === "ask") expect(decision.suggestions).toEqual(["Bash(npm test:*)"]);
      if (decision.behavior === "deny") expect(decision.message).toContain("verdict deny");
    }
  });

  test("asks the classifier once for identical actions (keys in any order), again for a different one", async () => {
    const { classifier, actions } = fakeClassifier(async () => ({ behavior: "allow", reason: "tests are routine" }));
    const judge = judgeWith(classifier);
    await judge.judge(call({ command: "npm test", description: "tests" }));
    const second = await judge.judge(call({ description: "tests", command: "npm test" }));
    expect(second).toMatchObject({ behavior: "allow", reason: { reason: "tests are routine (cached)" } });
    expect(actions).toHaveLength(1);
    await judge.judge(call({ command: "npm run lint" }));
    expect(actions).toHaveLength(2);
  });

  test("a fresh verdict hands on its classifier request (its tokens count in the session's usage); a cached one has none", async () => {
    const request = { model: "claude-haiku-4-5", startedAt: 10, endedAt: 60, usage: { input_tokens: 400, output_tokens: 9 } };
    const { classifier } = fakeClassifier(async () => ({ behavior: "allow", reason: "routine", request }));
    const judge = judgeWith(classifier);
    expect(await judge.judge(call({ command: "npm test" }))).toMatchObject({ behavior: "allow", classifierRequest: request });
    const cached = await judge.judge(call({ command: "npm test" }));
    expect(cached.classifierRequest).toBeUndefined();

    const failing = fakeClassifier(() => Promise.reject(new ClassifierError("unparsable", "prose", { request: { ...request, failure: "unparsable" } })));
    const asked = await judgeWith(failing.classifier).judge(call({ command: "npm test" }));
    expect(asked).toMatchObject({ behavior: "ask", classifierRequest: { failure: "unparsable", usage: { input_tokens: 400 } } });
  });

  test.each([
    ["an API error", () => Promise.reject(new ClassifierError("api_error", "overloaded_error 529")), "api_error"],
    ["an unparsable answer", () => Promise.reject(new ClassifierError("unparsable", "prose")), "unparsable"],
    ["an unexpected exception", () => Promise.reject(new TypeError("boom")), "boom"],
  ])("fails safe on %s: it asks, keeping the suggestions, and caches nothing", async (_label, answer, why) => {
    const { classifier, actions } = fakeClassifier(answer);
    const judge = judgeWith(classifier);
    const decision = await judge.judge(call({ command: "npm test" }));
    expect(decision).toMatchObject({ behavior: "ask", suggestions: ["Bash(npm test:*)"], reason: { type: "classifier" } });
    expect(decision.reason.type === "classifier" && decision.reason.reason).toContain(why);
    await judge.judge(call({ command: "npm test" }));
    expect(actions).toHaveLength(2);
  });

  test("asks once the timeout passes, even when the classifier ignores its signal", async () => {
    let sawAbort = false;
    const { classifier } = fakeClassifier(
      (_action, signal) =>
        new Promise(() => {
          signal.addEventListener("abort", () => (sawAbort = true));
        }),
    );
    const started = Date.now();
    const decision = await judgeWith(classifier, { timeoutMs: 30 }).judge(call({ command: "npm test" }));
    expect(decision.behavior).toBe("ask");
    expect(decision.reason.type === "classifier" && decision.reason.reason).toContain("timeout");
    // The 30 ms timeout plus the 1 s grace an aborted classifier gets to hand back its request, not forever.
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(sawAbort).toBe(true);
    expect(decision.classifierRequest).toBeUndefined();
  });

  test("a timed-out request that had reported its usage is still counted: the ask carries it, marked timeout", async () => {
    const request = { model: "claude-haiku-4-5", startedAt: 10, endedAt: 45, usage: { input_tokens: 900, output_tokens: 1 } };
    const { classifier } = fakeClassifier(
      (_action, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => reject(new ClassifierError("aborted", "cancelled", { request: { ...request, failure: "aborted" } })));
        }),
    );
    const decision = await judgeWith(classifier, { timeoutMs: 30 }).judge(call({ command: "npm test" }));
    expect(decision.reason.type === "classifier" && decision.reason.reason).toContain("timeout");
    expect(decision).toMatchObject({ behavior: "ask", classifierRequest: { ...request, failure: "timeout" } });
  });

  test("a cancelled call stops waiting for the classifier and asks", async () => {
    const { classifier } = fakeClassifier(() => new Promise(() => undefined));
    const controller = new AbortController();
    const pending = judgeWith(classifier, { timeoutMs: 60_000 }).judge(call({ command: "npm test" }, controller.signal));
    controller.abort();
    expect((await pending).behavior).toBe("ask");
  });

  test("after 3 classifier denials in a row, or 20 in the session, it asks without consulting the classifier", async () => {
    const { classifier, actions } = fakeClassifier(async () => ({ behavior: "deny", reason: "no" }));
    const inARow = await judgeWith(classifier, { denials: { classifierConsecutive: 3, classifierTotal: 3 } }).judge(call({ command: "npm test" }));
    expect(inARow).toMatchObject({ behavior: "ask", reason: { type: "classifier" } });
    expect(inARow.reason.type === "classifier" && inARow.reason.reason).toContain("3 calls in a row");
    const inAll = await judgeWith(classifier, { denials: { classifierConsecutive: 0, classifierTotal: 20 } }).judge(call({ command: "npm test" }));
    expect(inAll.reason.type === "classifier" && inAll.reason.reason).toContain("20 calls in this session");
    expect(actions).toHaveLength(0);
    const below = await judgeWith(classifier, { denials: { classifierConsecutive: 2, classifierTotal: 19 } }).judge(call({ command: "npm test" }));
    expect(below.behavior).toBe("deny");
  });
});
