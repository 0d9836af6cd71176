import { z } from "zod";
import { toolInputSchema } from "../tools/input-schema.ts";
import { toolInputJsonSchema } from "../model/request.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import type { Tool } from "../tools/tool.ts";

export const TOOL_SEARCH_NAME = "ToolSearch";
/** Share of the context window MCP tool schemas may take before they are deferred behind ToolSearch. */
export const DEFAULT_TOOL_SEARCH_SHARE = 0.1;
export const DEFAULT_TOOL_SEARCH_RESULTS = 5;

/** Tokens a tool's definition costs in every request, estimated as characters / 4. */
export function estimateToolTokens(tool: Tool): number {
  const definition = JSON.stringify({ name: tool.name, description: tool.description, input_schema: toolInputJsonSchema(tool) });
  return Math.ceil(definition.length / 4);
}

/**
 * Decides which MCP tools are sent up front. When their schemas together would take more than
 * `share` of the context window, all of them are deferred: the model gets ToolSearch instead and
 * loads the ones it needs.
 */
export function planToolExposure(
  mcpTools: readonly Tool[],
  options: { contextWindowTokens: number; share?: number },
): { exposed: Tool[]; deferred: Tool[]; estimatedTokens: number } {
  const estimatedTokens = mcpTools.reduce((sum, tool) => sum + estimateToolTokens(tool), 0);
  const budget = options.contextWindowTokens * (options.share ?? DEFAULT_TOOL_SEARCH_SHARE);
  if (mcpTools.length === 0 || estimatedTokens <= budget) return { exposed: [...mcpTools], deferred: [], estimatedTokens };
  return { exposed: [], deferred: [...mcpTools], estimatedTokens };
}

export const toolSearchInputSchema = toolInputSchema(TOOL_SEARCH_NAME, () =>
  z.strictObject({
    query: z
      .string()
      .min(1)
      .describe('What the tools should do ("search issues", "read a database table"), or "select:<name>[,<name>…]" for tools you already know by name'),
    max_results: z.number().int().min(1).max(50).optional().describe(`How many tools to load (default ${DEFAULT_TOOL_SEARCH_RESULTS})`),
  }),
);
export type ToolSearchInput = z.infer<typeof toolSearchInputSchema>;
export const toolSearchOutputSchema = z.object({
  query: z.string(),
  matches: z.array(z.string()),
  totalDeferredTools: z.number(),
});
export type ToolSearchOutput = z.infer<typeof toolSearchOutputSchema>;

/** Scores deferred tools for a keyword query: name hits weigh more than description hits. */
export function searchTools(tools: readonly Tool[], query: string, limit: number): Tool[] {
  const trimmed = query.trim();
  if (trimmed.toLowerCase().startsWith("select:")) {
    const names = trimmed
      .slice("select:".length)
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean);
    return names.flatMap((wanted) => tools.filter((tool) => tool.name === wanted || tool.name.toLowerCase() === wanted.toLowerCase())).slice(0, limit);
  }
  const terms = trimmed
    .toLowerCase()
    .split(/[\s_,]+/)
    .filter((term) => term.length > 0);
  const scored = tools.map((tool) => {
    const name = tool.name.toLowerCase().replace(/^mcp__/, "");
    const description = tool.description.toLowerCase();
    let score = 0;
    for (const term of terms) {
      if (name.includes(term)) score += 3;
      if (description.includes(term)) score += 1;
    }
    return { tool, score };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((left, right) => right.score - left.score)
    .slice(0, limit)
    .map((entry) => entry.tool);
}

/**
 * The ToolSearch tool. The mechanism, in three steps:
 * 1. Deferred tools are left out of `tools` in the request (they are still callable once loaded);
 *    ToolSearch's description lists their names so the model knows what exists.
 * 2. A search returns the matching names and descriptions and a context modifier that adds those
 *    tools to `ToolUseContext.tools`; the loop builds each request from the context's tools, so
 *    their full schemas go up from the next request on.
 * 3. The result's `toolUseResult` records the names loaded, so a later prompt (or a resumed
 *    session) loads them again through `toolsWithDiscovered(history)`.
 */
export function createToolSearchTool(deferred: () => readonly Tool[]): Tool<ToolSearchInput, ToolSearchOutput> {
  const names = deferred().map((tool) => tool.name);
  return {
    name: TOOL_SEARCH_NAME,
    inputSchema: toolSearchInputSchema,
    description: `Loads tools that are available but not yet loaded. Their schemas are not sent up front because there are many of them; search by what you need, and the tools found become callable from your next turn on.

Available tools to load (${names.length}): ${names.join(", ")}

Use "select:<tool name>" to load tools you already know by name, or keywords to search names and descriptions.`,
    maxResultChars: 20_000,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async call(input, context) {
      const candidates = deferred();
      const loaded = new Set(context.tools.map((tool) => tool.name));
      const matches = searchTools(candidates, input.query, input.max_results ?? DEFAULT_TOOL_SEARCH_RESULTS);
      const output: ToolSearchOutput = { query: input.query, matches: matches.map((tool) => tool.name), totalDeferredTools: candidates.length };
      if (matches.length === 0) {
        return { output, content: `No tools matched "${input.query}". ${candidates.length} tools can be loaded; try other keywords or "select:<name>".` };
      }
      const lines = matches.map((tool) => `- ${tool.name}: ${firstLine(tool.description)}`);
      return {
        output,
        content: `Loaded ${matches.length} tool${matches.length === 1 ? "" : "s"}; call ${matches.length === 1 ? "it" : "them"} directly from now on:\n${lines.join("\n")}`,
        contextModifier: (current) => ({
          ...current,
          tools: [...current.tools, ...matches.filter((tool) => !loaded.has(tool.name) && !current.tools.some((known) => known.name === tool.name))],
        }),
      };
    },
  };
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** Names loaded by earlier ToolSearch calls in this conversation (from their `toolUseResult`). */
export function discoveredToolNames(messages: readonly ConversationMessage[]): Set<string> {
  const searchCalls = new Set<string>();
  const names = new Set<string>();
  for (const message of messages) {
    if (message.type === "assistant") {
      for (const block of message.message.content) if (block.type === "tool_use" && block.name === TOOL_SEARCH_NAME) searchCalls.add(block.id);
      continue;
    }
    if (message.type !== "user" || typeof message.message.content === "string") continue;
    const answersSearch = message.message.content.some((block) => block.type === "tool_result" && searchCalls.has(block.tool_use_id));
    if (!answersSearch) continue;
    const output = toolSearchOutputSchema.safeParse(message.toolUseResult);
    if (output.success) for (const name of output.data.matches) names.add(name);
  }
  return names;
}

/** `base` plus the deferred tools an earlier ToolSearch in `history` loaded. */
export function toolsWithDiscovered(base: readonly Tool[], deferred: readonly Tool[], history: readonly ConversationMessage[]): Tool[] {
  if (deferred.length === 0) return [...base];
  const discovered = discoveredToolNames(history);
  return [...base, ...deferred.filter((tool) => discovered.has(tool.name) && !base.some((known) => known.name === tool.name))];
}
