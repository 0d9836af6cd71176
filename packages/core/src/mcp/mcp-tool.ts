import { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResultContent } from "../schema/content.ts";
import type { Tool, ToolProgress, ToolResult } from "../tools/tool.ts";
import type { McpCallOptions, McpToolDefinition } from "./connection.ts";
import { McpError } from "./errors.ts";
import { buildMcpToolName, normalizeNameForMCP } from "./names.ts";
import { mcpResultToContent } from "./result.ts";
import { Notifier } from "../state/notifier.ts";

/** Claude Code's cap on an MCP tool description: some servers ship whole manuals. */
export const MAX_MCP_DESCRIPTION_CHARS = 2_048;
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 60_000;

/** Whatever routes a call to the server that owns the tool (the manager, by tool name). */
export type McpToolCaller = (toolName: string, mcpToolName: string, args: Record<string, unknown>, options: McpCallOptions) => Promise<CallToolResult>;

/** The model's input is validated by the server against its own schema; here it only has to be an object. */
export const mcpToolInputSchema = z.looseObject({});
export type McpToolInput = z.infer<typeof mcpToolInputSchema>;
/** What the model read, kept as the transcript's `toolUseResult`; a failed call is Claude Code's `"Error: …"` string. */
export type McpToolOutput = ToolResultContent;
export type McpProgress = { progress: number; total?: number; message?: string };

export type McpToolOptions = {
  serverName: string;
  definition: McpToolDefinition;
  call: McpToolCaller;
  timeoutMs?: number;
  maxResultChars?: number;
};

/**
 * An MCP tool as a Cairn tool: `mcp__<server>__<tool>`, the server's JSON Schema sent as is,
 * `readOnlyHint` making it read-only and concurrency-safe, `mcpInfo` for permission rules. Progress
 * notifications stream as tool progress; failures the model can act on (timeout, a dead server, a
 * server error) become `is_error` results.
 */
export function createMcpTool(options: McpToolOptions): Tool<McpToolInput, McpToolOutput> {
  const { serverName, definition } = options;
  const name = buildMcpToolName(serverName, definition.name);
  const readOnly = definition.annotations?.readOnlyHint === true;
  const description = truncate(
    definition.description?.trim() || definition.annotations?.title || definition.title || `${definition.name} from the ${serverName} MCP server`,
  );
  return {
    name,
    inputSchema: mcpToolInputSchema,
    inputJsonSchema: { ...definition.inputSchema, type: "object" },
    description,
    mcpInfo: { serverName: normalizeNameForMCP(serverName), toolName: normalizeNameForMCP(definition.name) },
    ...(options.maxResultChars === undefined ? {} : { maxResultChars: options.maxResultChars }),
    isReadOnly: () => readOnly,
    isConcurrencySafe: () => readOnly,
    async *call(input, context): AsyncGenerator<ToolProgress, ToolResult<McpToolOutput>, void> {
      const progress: McpProgress[] = [];
      let settled: { result: CallToolResult } | { error: unknown } | undefined;
      const wakeUps = new Notifier();
      const pending = options
        .call(name, definition.name, input, {
          signal: context.signal,
          timeoutMs: options.timeoutMs ?? DEFAULT_MCP_TOOL_TIMEOUT_MS,
          onProgress: (update) => {
            progress.push({
              progress: update.progress,
              ...(update.total === undefined ? {} : { total: update.total }),
              ...(update.message === undefined ? {} : { message: update.message }),
            });
            wakeUps.notify();
          },
        })
        .then(
          (result) => (settled = { result }),
          (error: unknown) => (settled = { error }),
        )
        .finally(() => wakeUps.close());
      while (true) {
        while (progress.length > 0) yield { data: { type: "mcp-progress", server: serverName, ...progress.shift()! } };
        if (settled) break;
        await wakeUps.wait();
      }
      await pending;
      if ("error" in settled) {
        const error = settled.error;
        if (error instanceof McpError && error.code !== "aborted") return { output: `Error: ${error.message}`, content: error.message, isError: true };
        throw error;
      }
      const content = mcpResultToContent(settled.result, serverName);
      return { output: content, content, isError: settled.result.isError === true };
    },
  };
}

function truncate(text: string): string {
  return text.length <= MAX_MCP_DESCRIPTION_CHARS ? text : `${text.slice(0, MAX_MCP_DESCRIPTION_CHARS)}… [truncated]`;
}
