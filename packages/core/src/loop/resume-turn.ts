import { noHooks } from "../hooks/port.ts";
import { allowAllGate, headlessPrompter } from "../permissions/port.ts";
import type { ToolResultBlock, ToolUseBlock } from "../schema/content.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { AssistantMessage, ConversationMessage } from "../schema/messages.ts";
import { INTERRUPTED_TOOL_RESULT, repairForResume } from "../session/repair.ts";
import type { TranscriptSink } from "../session/port.ts";
import { StreamingToolExecutor } from "../tools/executor.ts";
import type { PipelineServices } from "../tools/pipeline-types.ts";
import { defaultQueryConfig } from "./config.ts";
import { MessageChain } from "./message-chain.ts";
import { createUserMessage } from "./messages.ts";
import { query } from "./query.ts";
import type { QueryParams } from "./query-params.ts";
import type { RunPromptResult } from "./run-prompt.ts";
import { RunTally } from "./run-tally.ts";
import { transcriptWriter } from "./transcript-writer.ts";
import { TurnToolResults } from "./turn-tool-results.ts";

/** The tool calls of a conversation's last response that have no result yet (undefined when there are none). */
export type UnansweredToolCalls = { assistant: AssistantMessage; calls: ToolUseBlock[] };

/**
 * The calls of the last response (of the main conversation) that no later message answers, while
 * nothing but their results follows it: the turn stopped while they ran or waited for a permission
 * answer. A prompt typed after the response means the turn was closed some other way.
 */
export function unansweredToolCalls(history: readonly ConversationMessage[]): UnansweredToolCalls | undefined {
  const main = history.filter((message) => !message.isSidechain);
  const index = main.findLastIndex((message) => message.type === "assistant");
  const assistant = main[index];
  if (!assistant || assistant.type !== "assistant") return undefined;
  const answered = new Set<string>();
  for (const message of main.slice(index + 1)) {
    if (message.type !== "user" || typeof message.message.content === "string") return undefined;
    for (const block of message.message.content) {
      if (block.type !== "tool_result") return undefined;
      answered.add(block.tool_use_id);
    }
  }
  const calls = assistant.message.content.filter((block): block is ToolUseBlock => block.type === "tool_use" && !answered.has(block.id));
  return calls.length > 0 ? { assistant, calls } : undefined;
}

export type ResumeTurnOptions = Omit<QueryParams, "messages"> & {
  /** The conversation as the transcript holds it, ending inside the unfinished turn. */
  history: readonly ConversationMessage[];
  /**
   * The unanswered calls that were waiting for a permission answer (so they never ran), with the id
   * of the question asked then: each goes through the pipeline again and the question is asked again
   * under that id. Every other unanswered call may have been running: it gets the interrupted result.
   */
  rerun: ReadonlyArray<{ toolUseId: string; requestId: string }>;
  sink?: TranscriptSink;
};

/**
 * Carries on a turn another process left unfinished (a session taken over from a dead node): calls
 * that may have run get the interrupted result, calls that waited for a permission answer are asked
 * again and run when allowed, and the loop goes on with their results, as it would have there. Every
 * message is appended to the transcript. The last event is the loop's `result`.
 */
export async function* resumeTurn(options: ResumeTurnOptions): AsyncGenerator<AgentEvent, RunPromptResult> {
  const { history, rerun, sink, ...params } = options;
  const { deps, signal } = params;
  const messages: ConversationMessage[] = [...history];
  const persist = transcriptWriter(sink, messages);
  const timestamp = () => new Date(deps.now()).toISOString();
  const chain = new MessageChain(messages.at(-1)?.uuid ?? null, { uuid: deps.uuid, timestamp, agentId: params.context.agentId });
  const tally = new RunTally(deps.now, null);
  const emit = async function* (event: AgentEvent): AsyncGenerator<AgentEvent> {
    await persist(event);
    yield event;
  };
  const end = async function* (terminal: Parameters<RunTally["result"]>[0]): AsyncGenerator<AgentEvent, RunPromptResult> {
    yield tally.result(terminal);
    await sink?.flush();
    return { terminal, messages };
  };

  const pending = unansweredToolCalls(history);
  const askAgain = new Map(rerun.map((entry) => [entry.toolUseId, entry.requestId]));
  const again = pending?.calls.filter((call) => askAgain.has(call.id)) ?? [];
  const interrupted = pending?.calls.filter((call) => !askAgain.has(call.id)) ?? [];
  if (interrupted.length > 0) {
    const content: ToolResultBlock[] = interrupted.map((call) => ({
      type: "tool_result",
      tool_use_id: call.id,
      content: INTERRUPTED_TOOL_RESULT,
      is_error: true,
    }));
    const results = chain.link(createUserMessage({ uuid: deps.uuid(), timestamp: timestamp(), parentUuid: chain.last, content }));
    yield* emit({ type: "message", message: results });
  }

  if (pending && again.length > 0) {
    const config = { ...defaultQueryConfig, ...params.config };
    const services: PipelineServices = {
      gate: params.gate ?? allowAllGate,
      prompter: params.prompter ?? headlessPrompter,
      hooks: params.hooks ?? noHooks,
      uuid: deps.uuid,
      now: deps.now,
      timestamp,
      permissionRequestId: (toolUseId) => askAgain.get(toolUseId),
    };
    const context = { ...params.context, signal, tools: params.tools, messages: [...messages] };
    const executor = new StreamingToolExecutor(context, pending.assistant, services, config.maxToolConcurrency, 0);
    const tools = new TurnToolResults(chain, tally);
    tools.calls.push(...again);
    for (const call of again) executor.add(call);
    for (const event of tools.afterAssistant()) yield* emit(event);
    // Streamed, not collected: the question must reach the user while its call waits.
    for await (const item of executor.remaining()) for (const event of tools.drain([item])) yield* emit(event);
  }

  if (signal.aborted) return yield* end({ reason: "aborted_tools", turnCount: 1 });
  if (tally.hookStop) {
    const why = tally.hookStop.stopReason ? `: ${tally.hookStop.stopReason}` : "";
    yield* emit({ type: "notice", level: "warning", code: "hook_stopped", message: `A hook stopped the run (${tally.hookStop.hookName})${why}` });
    return yield* end({ reason: "hook_stopped", turnCount: 1 });
  }
  // The model gets the results, as the loop would have sent them had the turn not stopped.
  const loop = query({ ...params, messages: repairForResume(messages) });
  while (true) {
    const step = await loop.next();
    if (step.done) {
      await sink?.flush();
      return { terminal: step.value, messages };
    }
    yield* emit(step.value);
  }
}
