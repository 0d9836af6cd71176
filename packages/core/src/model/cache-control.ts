import { modelCapabilities } from "./model-capabilities.ts";
import type { ApiMessage, ApiTool, SystemBlock } from "./port.ts";

const EPHEMERAL = { type: "ephemeral" } as const;
export const MAX_CACHE_BREAKPOINTS = 4;

/**
 * Places prompt-cache breakpoints: the last tool definition, the stable system prefix (the first
 * system block) and the last block of the last message. Three breakpoints, under the API's four.
 * Returns copies; the inputs are not touched.
 */
export function applyCacheBreakpoints(request: { system: SystemBlock[]; messages: ApiMessage[]; tools: ApiTool[] }): {
  system: SystemBlock[];
  messages: ApiMessage[];
  tools: ApiTool[];
} {
  const tools = request.tools.map((tool, index) => (index === request.tools.length - 1 ? { ...tool, cache_control: EPHEMERAL } : tool));
  const system = request.system.map((block, index) => (index === 0 ? { ...block, cache_control: EPHEMERAL } : block));
  const messages = request.messages.map((message, index) => {
    if (index !== request.messages.length - 1) return message;
    const blocks = typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
    const lastIndex = blocks.length - 1;
    return {
      ...message,
      content: blocks.map((block, blockIndex) => (blockIndex === lastIndex ? { ...block, cache_control: EPHEMERAL } : block)),
    };
  });
  return { system, messages, tools };
}

export function countCacheBreakpoints(request: { system: SystemBlock[]; messages: ApiMessage[]; tools?: ApiTool[] }): number {
  let count = request.system.filter((block) => block.cache_control).length;
  count += (request.tools ?? []).filter((tool) => tool.cache_control).length;
  for (const message of request.messages) {
    if (typeof message.content === "string") continue;
    count += message.content.filter((block) => block.cache_control).length;
  }
  return count;
}

/**
 * Prompt caching for one model: `auto` follows the model table, `always` sends breakpoints to any
 * model (a proxy known to take them), `never` sends none.
 */
export type PromptCachingMode = "auto" | "always" | "never";

export function promptCachingFor(mode: PromptCachingMode, model: string): boolean {
  if (mode === "never") return false;
  if (mode === "always") return true;
  return modelCapabilities(model).promptCaching;
}
