import { MessageAccumulator } from "../../model/accumulator.ts";
import type { ClassifierRequestRecord } from "../../schema/permissions.ts";
import { isModelError, type ModelClient } from "../../model/port.ts";
import { ClassifierError, type ActionClassifier } from "./classifier-port.ts";
import { buildClassifierRequest, parseClassifierVerdict } from "./classifier-prompt.ts";

export type ModelClassifierOptions = {
  client: ModelClient;
  /** Read per call, so a settings reload changes the model at once (aliases already resolved). */
  model(): string;
  /** Clock for the request's start and end (epoch ms); `Date.now` by default. */
  now?: () => number;
};

/**
 * The classifier as one small model request through the same SDK client the loop uses. No retries:
 * a failure (an overloaded API, a stream error) is answered at once by asking the user.
 */
export function createModelActionClassifier(options: ModelClassifierOptions): ActionClassifier {
  return {
    async classify(action, signal) {
      const now = options.now ?? Date.now;
      const request = buildClassifierRequest(action, options.model());
      const accumulator = new MessageAccumulator();
      const startedAt = now();
      const record = (extra: Partial<ClassifierRequestRecord>): ClassifierRequestRecord => ({ model: request.model, startedAt, endedAt: now(), ...extra });
      // A request cut short (cancelled, timed out, failed mid-stream) still used the tokens its message_start reported.
      const reported = (): Partial<ClassifierRequestRecord> =>
        accumulator.started ? { model: accumulator.model || request.model, usage: accumulator.partial().usage } : {};
      try {
        for await (const part of options.client.stream(request, { signal })) accumulator.apply(part);
      } catch (error) {
        if (signal.aborted)
          throw new ClassifierError("aborted", "the classifier request was cancelled", {
            cause: error,
            request: record({ ...reported(), failure: "aborted" }),
          });
        const detail = isModelError(error) ? `${error.code}${error.status ? ` ${error.status}` : ""}: ${error.message}` : String(error);
        throw new ClassifierError("api_error", `the classifier request failed (${detail})`, {
          cause: error,
          request: record({ ...reported(), failure: "api_error" }),
        });
      }
      const message = accumulator.finish();
      const verdict = parseClassifierVerdict(message.content);
      if (!verdict) {
        throw new ClassifierError("unparsable", "the classifier's answer was not a valid permission_verdict call", {
          request: record({ model: message.model || request.model, usage: message.usage, failure: "unparsable" }),
        });
      }
      return { ...verdict, request: record({ model: message.model || request.model, usage: message.usage }) };
    },
  };
}
