import { describe, expect, test } from "vitest";
import { ModelError } from "../../model/port.ts";
import { fixedClock } from "../../testing/harness.ts";
import { createScriptedModel } from "../../testing/scripted-model.ts";
import { ClassifierError } from "./classifier-port.ts";
import { createModelActionClassifier } from "./model-classifier.ts";

const action = { toolName: "Bash", input: { command: "npm test" }, cwd: "/ws", userRequests: ["run the tests"] };
const verdictCall = (decision: string) => ({ type: "tool_use" as const, id: "toolu_v", name: "permission_verdict", input: { decision, reason: "routine" } });

function classifierFor(model: ReturnType<typeof createScriptedModel>) {
  const clock = fixedClock(1_000, 7);
  return createModelActionClassifier({ client: model, model: () => "claude-haiku-4-5", now: clock.now });
}

describe("the model classifier's request record", () => {
  test("a verdict carries its request: model, times and the tokens it used", async () => {
    const model = createScriptedModel([{ content: [verdictCall("allow")], usage: { input_tokens: 420, output_tokens: 12 } }]);
    const verdict = await classifierFor(model).classify(action, new AbortController().signal);
    expect(verdict).toMatchObject({ behavior: "allow", reason: "routine" });
    expect(verdict.request).toMatchObject({ model: "claude-haiku-4-5", startedAt: 1_000, usage: { input_tokens: 420, output_tokens: 12 } });
    expect(verdict.request!.endedAt).toBeGreaterThan(verdict.request!.startedAt);
    expect(verdict.request?.failure).toBeUndefined();
  });

  test("an unparsable answer still reports the tokens it cost; an API error reports the request without usage", async () => {
    const prose = createScriptedModel([{ content: [{ type: "text", text: "sure, go ahead" }], usage: { input_tokens: 300, output_tokens: 40 } }]);
    const unparsable = await classifierFor(prose)
      .classify(action, new AbortController().signal)
      .catch((error: unknown) => error);
    expect(unparsable).toBeInstanceOf(ClassifierError);
    expect((unparsable as ClassifierError).request).toMatchObject({ failure: "unparsable", usage: { input_tokens: 300, output_tokens: 40 } });

    const overloaded = createScriptedModel([{ content: [], error: new ModelError("overloaded", "overloaded", { status: 529 }) }]);
    const failed = await classifierFor(overloaded)
      .classify(action, new AbortController().signal)
      .catch((error: unknown) => error);
    expect((failed as ClassifierError).code).toBe("api_error");
    expect((failed as ClassifierError).request).toMatchObject({ model: "claude-haiku-4-5", failure: "api_error" });
    expect((failed as ClassifierError).request?.usage).toBeUndefined();
  });

  test("a request cut short after its message_start still reports the input tokens it was charged", async () => {
    const controller = new AbortController();
    const stalled = createScriptedModel([
      {
        content: [verdictCall("allow")],
        usage: { input_tokens: 512 },
        // The answer starts, then the caller gives up waiting (as auto mode's timeout does).
        beforePart: (_part, index) => {
          if (index === 1) controller.abort();
        },
      },
    ]);
    const aborted = await classifierFor(stalled)
      .classify(action, controller.signal)
      .catch((error: unknown) => error);
    expect((aborted as ClassifierError).code).toBe("aborted");
    expect((aborted as ClassifierError).request).toMatchObject({ model: "claude-haiku-4-5", failure: "aborted", usage: { input_tokens: 512 } });

    const cut = createScriptedModel([
      { content: [verdictCall("allow")], usage: { input_tokens: 64 }, cutAfterParts: { parts: 2, error: new ModelError("connection", "socket hang up") } },
    ]);
    const failed = await classifierFor(cut)
      .classify(action, new AbortController().signal)
      .catch((error: unknown) => error);
    expect((failed as ClassifierError).request).toMatchObject({ failure: "api_error", usage: { input_tokens: 64 } });
  });
});
