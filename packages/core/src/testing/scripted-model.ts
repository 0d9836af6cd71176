import type { ContentBlock } from "../schema/content.ts";
import type { Usage } from "../schema/usage.ts";
import { ModelError, type ModelClient, type ModelRequest, type ModelStreamPart } from "../model/port.ts";

export type ScriptedBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "tool_use"; id: string; name: string; input: unknown; rawJson?: string };

export type ScriptedTurn = {
  content: ScriptedBlock[];
  stopReason?: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence";
  usage?: Partial<Usage>;
  /** Thrown instead of answering (the request consumes this turn only if `consume` is true). */
  error?: ModelError;
  /** Throw this error after that many parts have been streamed. */
  cutAfterParts?: { parts: number; error: ModelError };
  /** Awaited before each part: lets a test hold the stream open. */
  beforePart?: (part: ModelStreamPart, index: number) => Promise<void> | void;
  /** Characters per text delta. */
  chunkSize?: number;
};

export type ScriptedModel = ModelClient & {
  /** Every request received, deep-copied, in order. */
  readonly requests: ModelRequest[];
  remaining(): number;
};

/**
 * A model scripted per call that records what it was sent, so tests assert on the requests the loop
 * built and not only on what it yielded. A turn with `error` is consumed by the failing attempt;
 * script the retry's answer as the next turn.
 */
export function createScriptedModel(turns: Array<ScriptedTurn | ((request: ModelRequest) => ScriptedTurn)>): ScriptedModel {
  const queue = [...turns];
  const requests: ModelRequest[] = [];
  let messageCount = 0;
  return {
    requests,
    remaining: () => queue.length,
    async *stream(request, { signal }) {
      requests.push(structuredClone(request));
      const next = queue.shift();
      if (!next) throw new ModelError("invalid_request", `scripted model: no turn left for request ${requests.length}`);
      const turn = typeof next === "function" ? next(request) : next;
      if (turn.error) throw turn.error;
      messageCount++;
      const parts = turnToParts(turn, `msg_scripted_${messageCount}`, request.model);
      for (let index = 0; index < parts.length; index++) {
        if (signal.aborted) throw new ModelError("aborted", "aborted");
        if (turn.cutAfterParts && index === turn.cutAfterParts.parts) throw turn.cutAfterParts.error;
        const part = parts[index]!;
        await turn.beforePart?.(part, index);
        if (signal.aborted) throw new ModelError("aborted", "aborted");
        yield part;
      }
    },
  };
}

export function turnToParts(turn: ScriptedTurn, id: string, model: string): ModelStreamPart[] {
  const chunkSize = turn.chunkSize ?? 8;
  const parts: ModelStreamPart[] = [{ type: "message-start", id, model, usage: { input_tokens: turn.usage?.input_tokens ?? 10, output_tokens: 1 } }];
  turn.content.forEach((block, index) => {
    switch (block.type) {
      case "text":
        parts.push({ type: "block-start", index, block: { type: "text", text: "" } });
        for (const chunk of chunks(block.text, chunkSize)) parts.push({ type: "text-delta", index, text: chunk });
        break;
      case "thinking":
        parts.push({ type: "block-start", index, block: { type: "thinking", thinking: "", signature: "" } });
        for (const chunk of chunks(block.thinking, chunkSize)) parts.push({ type: "thinking-delta", index, thinking: chunk });
        parts.push({ type: "signature-delta", index, signature: block.signature ?? "sig" });
        break;
      case "tool_use": {
        parts.push({ type: "block-start", index, block: { type: "tool_use", id: block.id, name: block.name, input: {} } as ContentBlock });
        const json = block.rawJson ?? JSON.stringify(block.input);
        for (const chunk of chunks(json, Math.max(1, Math.ceil(json.length / 3)))) parts.push({ type: "tool-input-delta", index, partialJson: chunk });
        break;
      }
    }
    parts.push({ type: "block-stop", index });
  });
  const hasTools = turn.content.some((block) => block.type === "tool_use");
  parts.push({
    type: "message-delta",
    stopReason: turn.stopReason ?? (hasTools ? "tool_use" : "end_turn"),
    stopSequence: null,
    usage: { output_tokens: turn.usage?.output_tokens ?? 5, ...(turn.usage ?? {}) },
  });
  parts.push({ type: "message-stop" });
  return parts;
}

function chunks(text: string, size: number): string[] {
  if (text.length === 0) return [];
  const out: string[] = [];
  for (let start = 0; start < text.length; start += size) out.push(text.slice(start, start + size));
  return out;
}
