import type { AssistantBlock, AssistantMessage } from "./assistant-message.ts";

/** One server-sent event: `event: <event>\ndata: <json>\n\n`. */
export type SseEvent = { event: string; data: unknown };

export type StreamOptions = {
  /** Characters per `text_delta` / `thinking_delta`. */
  textChunkSize: number;
};

const MIN_JSON_CHUNKS = 3;

export function formatSseEvent(event: SseEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * The events the real Messages API sends for `message`, in order. Lazy, so a 20,000-delta
 * answer never exists as one array.
 */
export function* messageStreamEvents(message: AssistantMessage, options: StreamOptions): Generator<SseEvent> {
  const { usage } = message;
  yield sse("message_start", {
    type: "message_start",
    message: {
      ...message,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: Math.min(1, usage.output_tokens) },
    },
  });
  if (message.content.length === 0) yield sse("ping", { type: "ping" });
  for (const [index, block] of message.content.entries()) {
    yield sse("content_block_start", { type: "content_block_start", index, content_block: startingBlock(block) });
    // The real API pings right after the first block opens.
    if (index === 0) yield sse("ping", { type: "ping" });
    for (const delta of blockDeltas(block, options)) {
      yield sse("content_block_delta", { type: "content_block_delta", index, delta });
    }
    yield sse("content_block_stop", { type: "content_block_stop", index });
  }
  yield sse("message_delta", {
    type: "message_delta",
    delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
    usage,
  });
  yield sse("message_stop", { type: "message_stop" });
}

function sse(event: string, data: unknown): SseEvent {
  return { event, data };
}

function startingBlock(block: AssistantBlock): AssistantBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: "" };
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" };
    case "redacted_thinking":
      return block;
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: {} };
  }
}

function* blockDeltas(block: AssistantBlock, options: StreamOptions): Generator<Record<string, string>> {
  switch (block.type) {
    case "text":
      for (const text of chunks(block.text, options.textChunkSize)) yield { type: "text_delta", text };
      return;
    case "thinking":
      for (const thinking of chunks(block.thinking, options.textChunkSize)) yield { type: "thinking_delta", thinking };
      yield { type: "signature_delta", signature: block.signature };
      return;
    case "redacted_thinking":
      return;
    case "tool_use": {
      const json = JSON.stringify(block.input);
      const size = Math.max(1, Math.min(options.textChunkSize, Math.ceil(json.length / MIN_JSON_CHUNKS)));
      for (const partial_json of chunks(json, size)) yield { type: "input_json_delta", partial_json };
      return;
    }
  }
}

/** Splits `text` into pieces of `size` UTF-16 units, never between the halves of a surrogate pair. */
export function* chunks(text: string, size: number): Generator<string> {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end += 1;
    yield text.slice(start, end);
    start = end;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
