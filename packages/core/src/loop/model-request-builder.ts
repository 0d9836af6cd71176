import type { Compactor } from "../compact/port.ts";
import { promptCachingFor } from "../model/cache-control.ts";
import type { ModelRequest } from "../model/port.ts";
import { buildModelRequest } from "../model/request.ts";
import { thinkingConfigFor } from "../model/thinking.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import type { Tool } from "../tools/tool.ts";
import type { QueryConfig } from "./config.ts";
import type { QueryParams } from "./query-params.ts";
import { taskBudgetForRequest } from "./task-budget.ts";

export type RequestBuilderInput = {
  config: QueryConfig;
  params: Pick<QueryParams, "systemPrompt" | "betas" | "metadata">;
  compactor: Compactor;
  maxOutputTokens: number;
  messages: readonly ConversationMessage[];
  /** The whole conversation, compact boundaries included: the task budget counts what was compacted away. */
  conversation: readonly ConversationMessage[];
  /** The context's tools: a context modifier (ToolSearch) may have loaded more since the first request. */
  tools: readonly Tool[];
};

/** One turn's request for a given model: thinking, caching and the task budget are decided per model, so the fallback model gets a request of its own. */
export function modelRequestBuilder(input: RequestBuilderInput): (model: string) => ModelRequest {
  const { config, params } = input;
  return (model) => {
    const thinking = thinkingConfigFor(config.thinking, model);
    const taskBudget = taskBudgetForRequest(input.compactor, model, input.conversation);
    return buildModelRequest({
      model,
      maxOutputTokens: input.maxOutputTokens,
      systemPrompt: params.systemPrompt,
      messages: input.messages,
      tools: input.tools,
      promptCaching: promptCachingFor(config.promptCaching, model),
      ...(thinking ? { thinking } : {}),
      ...(params.betas ? { betas: params.betas } : {}),
      ...(params.metadata ? { metadata: params.metadata } : {}),
      ...(taskBudget ? { taskBudget } : {}),
    });
  };
}
