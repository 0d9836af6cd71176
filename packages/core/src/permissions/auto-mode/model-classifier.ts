import { MessageAccumulator } from "../../model/accumulator.ts";
import { isModelError, type ModelClient } from "../../model/port.ts";
import { ClassifierError, type ActionClassifier } from "./classifier-port.ts";
import { buildClassifierRequest, parseClassifierVerdict } from "./classifier-prompt.ts";

export type ModelClassifierOptions = {
  client: ModelClient;
  /** Read per call, so a settings reload changes the model at once (aliases already resolved). */
  model(): string;
};

/**
 * The classifier as one small model request through the same SDK client the loop uses. No retries:
 * a failure (an overloaded API, a stream error) is answered at once by asking the user.
 */
export function createModelActionClassifier(options: ModelClassifierOptions): ActionClassifier {
  return {
    async classify(action, signal) {
      const request = buildClassifierRequest(action, options.model());
      const accumulator = new MessageAccumulator();
      try {
        for await (const part of options.client.stream(request, { signal })) accumulator.apply(part);
      } catch (error) {
        if (signal.aborted) throw new ClassifierError("aborted", "the classifier request was cancelled", { cause: error });
        const detail = isModelError(error) ? `${error.code}${error.status ? ` ${error.status}` : ""}: ${error.message}` : String(error);
        throw new ClassifierError("api_error", `the classifier request failed (${detail})`, { cause: error });
      }
      const verdict = parseClassifierVerdict(accumulator.finish().content);
      if (!verdict) throw new ClassifierError("unparsable", "the classifier's answer was not a valid permission_verdict call");
      return verdict;
    },
  };
}
