import { callModel } from "../model/call-model.ts";
import type { ModelClient } from "../model/port.ts";
import { buildModelRequest } from "../model/request.ts";
import type { RetryPolicy } from "../model/retry.ts";
import type { ContentBlock } from "../schema/content.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { ConversationMessage, UserMessage } from "../schema/messages.ts";
import type { Usage } from "../schema/usage.ts";
import { textContent } from "../tools/tool.ts";
import { CompactionError } from "./errors.ts";
import { safeCutPoints } from "./split.ts";
import { extractSummary, SUMMARY_SYSTEM_PROMPT, summaryPrompt } from "./summary-prompt.ts";

export type SummaryCallOptions = {
  client: ModelClient;
  model: string;
  messages: readonly ConversationMessage[];
  instructions: readonly string[];
  signal: AbortSignal;
  retry: RetryPolicy;
  now: () => number;
  random: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  maxOutputTokens: number;
  /** Each tool result is cut to this for the summary request; the summary needs the gist, not every byte. */
  maxToolResultChars: number;
  /** Retries after the summary request itself was too long, each dropping the oldest fifth. */
  maxPromptTooLongRetries: number;
};

export type SummaryCallResult = {
  summary: string;
  /** Oldest messages left out because the summary request was too long. */
  droppedMessages: number;
  /** Retries the model layer made, for the UI. */
  events: AgentEvent[];
  usage: Usage;
};

function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[... ${(text.length - max).toLocaleString("en-US")} more characters cut for the summary request]`;
}

function prepareBlock(block: ContentBlock, maxChars: number): ContentBlock[] {
  switch (block.type) {
    case "thinking":
    case "redacted_thinking":
      // Thinking is not needed for a summary, and its signatures tie it to the original request.
      return [];
    case "image":
      return [{ type: "text", text: "[image]" }];
    case "tool_result": {
      const content = block.content;
      if (content === undefined) return [block];
      if (typeof content === "string") return [{ ...block, content: cutText(content, maxChars) }];
      const parts = content.map((part) => {
        if (part.type === "image") return { type: "text" as const, text: "[image]" };
        if (part.type === "text" && typeof part.text === "string") return { type: "text" as const, text: cutText(part.text, maxChars) };
        return part;
      });
      return [{ ...block, content: parts }];
    }
    default:
      return [block];
  }
}

/** The conversation as the summariser gets it: no thinking, no images, tool results cut. */
export function prepareForSummary(messages: readonly ConversationMessage[], maxToolResultChars: number): ConversationMessage[] {
  return messages.map((message) => {
    if (message.type === "system" || typeof message.message.content === "string") return message;
    const content = message.message.content.flatMap((block) => prepareBlock(block, maxToolResultChars));
    return message.type === "user" ? { ...message, message: { ...message.message, content } } : { ...message, message: { ...message.message, content } };
  });
}

/** Drops about the oldest fifth of the messages, cutting only where no tool call is split. */
function dropOldest(messages: readonly ConversationMessage[]): number {
  const safe = safeCutPoints(messages);
  let cut = Math.max(1, Math.ceil(messages.length / 5));
  while (cut < messages.length && !safe[cut]) cut++;
  return cut;
}

/**
 * Asks the model for a structured summary of `messages`: no tools, the summary prompt as the
 * last user turn, the model layer's retries. If even this request is too long, the oldest
 * messages are dropped a fifth at a time, as Claude Code does. Throws a `CompactionError`.
 */
export async function requestSummary(options: SummaryCallOptions): Promise<SummaryCallResult> {
  let messages = prepareForSummary(options.messages, options.maxToolResultChars);
  let droppedMessages = 0;
  const events: AgentEvent[] = [];
  for (let attempt = 0; ; attempt++) {
    const prompt: UserMessage = {
      type: "user",
      uuid: "compact-summary-request",
      parentUuid: null,
      timestamp: new Date(options.now()).toISOString(),
      message: { role: "user", content: summaryPrompt(options.instructions) },
    };
    const request = buildModelRequest({
      model: options.model,
      maxOutputTokens: options.maxOutputTokens,
      systemPrompt: [SUMMARY_SYSTEM_PROMPT],
      messages: [...messages, prompt],
      tools: [],
      promptCaching: false,
    });
    const call = callModel({
      client: options.client,
      request,
      signal: options.signal,
      retry: options.retry,
      now: options.now,
      random: options.random,
      sleep: options.sleep,
    });
    let step = await call.next();
    while (!step.done) {
      const { value } = step;
      if (value.type === "retry") events.push(value);
      step = await call.next();
    }
    const result = step.value;
    if (result.kind === "complete") {
      const summary = extractSummary(textContent(result.message.content));
      if (summary.length === 0) throw new CompactionError("empty_summary", "The model returned no summary text.");
      return { summary, droppedMessages, events, usage: result.message.usage };
    }
    const { error } = result;
    if (error.code === "aborted" || options.signal.aborted) throw new CompactionError("aborted", "Compaction was aborted.", { cause: error });
    if (result.kind === "cut") throw new CompactionError("summary_failed", `The summary was cut off: ${error.message}`, { cause: error });
    if (error.code !== "prompt_too_long") throw new CompactionError("summary_failed", `The summary call failed: ${error.message}`, { cause: error });
    const cut = dropOldest(messages);
    if (attempt >= options.maxPromptTooLongRetries || cut >= messages.length) {
      throw new CompactionError("prompt_too_long", `The conversation is too long even to summarise: ${error.message}`, { cause: error });
    }
    messages = messages.slice(cut);
    droppedMessages += cut;
  }
}
