import { z } from "zod";
import type { ContextModifier, Tool, ToolResult } from "../tools/tool.ts";

export type ToolLogEntry = { name: string; id: string; event: "start" | "end"; at: number };

/**
 * A small tool for engine tests. `run` decides the result; the log records start and end times so
 * tests can tell concurrent calls from serial ones.
 */
export function createTestTool(options: {
  name: string;
  safe: boolean;
  log?: ToolLogEntry[];
  run?: (input: { value: string }, signal: AbortSignal) => Promise<string> | string;
  modifier?: (input: { value: string }) => ContextModifier | undefined;
  aliases?: string[];
}): Tool<{ value: string }, string> {
  return {
    name: options.name,
    ...(options.aliases ? { aliases: options.aliases } : {}),
    description: `Test tool ${options.name}`,
    inputSchema: z.object({ value: z.string() }),
    isReadOnly: () => options.safe,
    isConcurrencySafe: () => options.safe,
    async call(input, context, meta): Promise<ToolResult<string>> {
      options.log?.push({ name: options.name, id: meta.toolUseId, event: "start", at: performance.now() });
      try {
        const output = options.run ? await options.run(input, context.signal) : `${options.name}:${input.value}`;
        const modifier = options.modifier?.(input);
        return { output, ...(modifier ? { contextModifier: modifier } : {}) };
      } finally {
        options.log?.push({ name: options.name, id: meta.toolUseId, event: "end", at: performance.now() });
      }
    },
  };
}

export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new Error("aborted"));
      },
      { once: true },
    );
  });
}
