import type { ToolUseBlock } from "../schema/content.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { AssistantMessage } from "../schema/messages.ts";
import type { Tool, ToolResult, ToolUseContext } from "./tool.ts";

/** Runs the tool, passing on its progress; stops waiting when the call is aborted. */
export async function* callTool(
  tool: Tool,
  input: unknown,
  context: ToolUseContext,
  block: ToolUseBlock,
  assistantMessage: AssistantMessage,
): AsyncGenerator<AgentEvent, ToolResult> {
  const called = tool.call(input, context, { toolUseId: block.id, assistantMessage });
  if (!isAsyncGenerator(called)) return await raceAbort(called, context.signal);
  while (true) {
    const step = await raceAbort(called.next(), context.signal).catch(async (error: unknown) => {
      await called.return?.(undefined as never).catch(() => undefined);
      throw error;
    });
    if (step.done) return step.value;
    yield { type: "tool-progress", toolUseId: block.id, name: tool.name, data: step.value.data };
  }
}

/** A tool that ignores its abort signal must not hold the session: stop waiting for it. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new DOMException("Aborted", "AbortError"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DOMException("Aborted", "AbortError"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function isAsyncGenerator<T>(value: unknown): value is AsyncGenerator<{ data: unknown }, T> {
  return typeof value === "object" && value !== null && typeof (value as AsyncGenerator).next === "function" && Symbol.asyncIterator in value;
}
