import type { ConversationMessage } from "../schema/messages.ts";
import { inputJsonSchemaOf, precomputedInputJsonSchema } from "../tools/input-schema.ts";
import type { Tool } from "../tools/tool.ts";
import { applyCacheBreakpoints } from "./cache-control.ts";
import { normalizeMessagesForAPI } from "./normalize.ts";
import type { ApiTool, ModelRequest, SystemBlock, ThinkingConfig } from "./port.ts";
import { TASK_BUDGET_BETA, type TaskBudget } from "./task-budget.ts";

const schemaCache = new WeakMap<Tool, Record<string, unknown>>();

/** The JSON Schema the model sees for a tool: its own, the bundle's precomputed one, or derived once from its zod input schema. */
export function toolInputJsonSchema(tool: Tool): Record<string, unknown> {
  if (tool.inputJsonSchema) return tool.inputJsonSchema;
  const cached = schemaCache.get(tool);
  if (cached) return cached;
  const schema = precomputedInputJsonSchema(tool.inputSchema) ?? inputJsonSchemaOf(tool.inputSchema);
  schemaCache.set(tool, schema);
  return schema;
}

export function toApiTool(tool: Tool): ApiTool {
  return { name: tool.name, description: tool.description, input_schema: toolInputJsonSchema(tool) };
}

export type BuildRequestOptions = {
  model: string;
  maxOutputTokens: number;
  /** Blocks of the system prompt; the first is the stable, cacheable prefix. */
  systemPrompt: readonly string[];
  messages: readonly ConversationMessage[];
  tools: readonly Tool[];
  thinking?: ThinkingConfig;
  betas?: readonly string[];
  metadata?: { user_id?: string };
  /** Sent as `output_config.task_budget` with its beta header (only for a model that accepts it). */
  taskBudget?: TaskBudget;
  promptCaching: boolean;
};

export function buildModelRequest(options: BuildRequestOptions): ModelRequest {
  const system: SystemBlock[] = options.systemPrompt.filter((text) => text.length > 0).map((text) => ({ type: "text", text }));
  const messages = normalizeMessagesForAPI(options.messages);
  const tools = options.tools.map(toApiTool);
  const cached = options.promptCaching ? applyCacheBreakpoints({ system, messages, tools }) : { system, messages, tools };
  const thinkingOn = options.thinking?.type === "enabled";
  const betas = [...(options.betas ?? [])];
  if (options.taskBudget && !betas.includes(TASK_BUDGET_BETA)) betas.push(TASK_BUDGET_BETA);
  return {
    model: options.model,
    // With thinking on, max_tokens must exceed the thinking budget.
    max_tokens: thinkingOn ? Math.max(options.maxOutputTokens, (options.thinking as { budget_tokens: number }).budget_tokens + 1024) : options.maxOutputTokens,
    system: cached.system,
    messages: cached.messages,
    ...(cached.tools.length > 0 ? { tools: cached.tools } : {}),
    ...(options.thinking ? { thinking: options.thinking } : {}),
    ...(options.metadata ? { metadata: options.metadata } : {}),
    ...(options.taskBudget ? { output_config: { task_budget: options.taskBudget } } : {}),
    ...(betas.length ? { betas } : {}),
  };
}
