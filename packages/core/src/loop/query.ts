import type { CompactionInput, CompactionResult } from "../compact/port.ts";
import { forgetUnseenFiles } from "../compact/read-file-state.ts";
import { noHooks, type HookDispatcher } from "../hooks/port.ts";
import { dispatchRecorded, dispatchSessionStart } from "../hooks/session-events.ts";
import type { SessionMemory } from "../memory/session-memory.ts";
import { callModel, type CallModelResult } from "../model/call-model.ts";
import { promptCachingFor } from "../model/cache-control.ts";
import { thinkingConfigFor } from "../model/thinking.ts";
import { buildModelRequest } from "../model/request.ts";
import { allowAllGate, headlessPrompter, type PermissionGate, type PermissionPrompter } from "../permissions/port.ts";
import type { ContentBlock, ToolUseBlock } from "../schema/content.ts";
import type { AgentEvent, Terminal } from "../schema/events.ts";
import type { AssistantMessage, ConversationMessage, UserMessage } from "../schema/messages.ts";
import { addUsage, emptyUsageTotals, type UsageTotals } from "../schema/usage.ts";
import { StreamingToolExecutor, type ExecutorItem } from "../tools/executor.ts";
import type { PipelineServices } from "../tools/pipeline.ts";
import type { Tool, ToolUseContext } from "../tools/tool.ts";
import { toolResultFilesOf } from "../tools/tool-result-files.ts";
import { defaultQueryConfig, MAX_TOKENS_RESUME_MESSAGE, STREAM_CUT_RESUME_MESSAGE, type QueryConfig } from "./config.ts";
import type { QueryDeps } from "./deps.ts";
import { createUserMessage, messagesAfterCompactBoundary, withUserContext } from "./messages.ts";
import { backgroundAgentsOf } from "../agents/background-agents.ts";
import { discardedAttemptEvents } from "./discarded-attempt.ts";
import type { QueryState } from "./query-state.ts";
import { modelForMode } from "./plan-mode.ts";
import { mapModelEvent } from "./stream-events.ts";
import { taskBudgetForRequest, taskBudgetIgnoredNotice } from "./task-budget.ts";
import { createTokenBudgetTracker } from "./token-budget.ts";
import { applyToolResultBudget } from "./tool-result-budget.ts";
import { turnNotes } from "./turn-notes.ts";

export type QueryParams = {
  /** The conversation so far, ending with the new prompt. */
  messages: ConversationMessage[];
  /** System prompt blocks; the first is the stable, cacheable prefix. */
  systemPrompt: readonly string[];
  tools: readonly Tool[];
  model: string;
  /** The model used while the session is in plan mode (`planModel`); the session's model comes back after. */
  planModel?: string;
  fallbackModel?: string;
  betas?: readonly string[];
  /** Sent as the request's `metadata` (e.g. an opaque `user_id`). */
  metadata?: { user_id?: string };
  maxTurns?: number;
  /** Output tokens to spend before the run may end (Claude Code's token budget); each continuation carries a nudge. Not for subagents. */
  tokenBudget?: number;
  /** Before ending, wait for background agents still running and continue with their results (`cairn -p`). */
  awaitBackgroundAgents?: boolean;
  signal: AbortSignal;
  /** Workspace, app state, read-file state and services for tools; the loop sets signal, tools and messages. */
  context: Omit<ToolUseContext, "signal" | "tools" | "messages">;
  gate?: PermissionGate;
  prompter?: PermissionPrompter;
  hooks?: HookDispatcher;
  /** Memory files and skills, re-checked at the top of every iteration and sent at the start of the conversation. */
  memory?: Pick<SessionMemory, "prefetch">;
  deps: QueryDeps;
  config?: Partial<QueryConfig>;
};

/**
 * The agent loop. Each iteration: compaction stages → request → stream (safe tools start as their
 * blocks complete) → remaining tools → stop hooks → continue or return. Yields `AgentEvent`s and
 * returns the `Terminal` that says why it stopped; the last event is always `result`.
 */
export async function* query(params: QueryParams): AsyncGenerator<AgentEvent, Terminal> {
  const config: QueryConfig = { ...defaultQueryConfig, ...params.config };
  const { deps, signal } = params;
  const hooks = params.hooks ?? noHooks;
  const services: PipelineServices = {
    gate: params.gate ?? allowAllGate,
    prompter: params.prompter ?? headlessPrompter,
    hooks,
    uuid: deps.uuid,
    now: deps.now,
    timestamp: () => new Date(deps.now()).toISOString(),
  };
  const startedAt = deps.now();
  let usage: UsageTotals = emptyUsageTotals();
  let apiMs = 0;
  const denials: Array<{ toolName: string; toolUseId: string; input: unknown }> = [];
  /** A tool hook said `continue: false`: the run ends once the calls in flight have their results. */
  let hookStop = null as { hookName: string; stopReason?: string } | null;
  let lastUuid: string | null = params.messages.at(-1)?.uuid ?? null;
  const chain = <T extends ConversationMessage>(message: T): T => {
    const linked = { ...message, parentUuid: message.parentUuid === undefined ? lastUuid : message.parentUuid };
    lastUuid = linked.uuid;
    return linked;
  };
  const meta = (text: string): UserMessage =>
    chain(
      createUserMessage({
        uuid: deps.uuid(),
        timestamp: services.timestamp(),
        parentUuid: lastUuid,
        content: text,
        isMeta: true,
        ...(params.context.agentId ? { agentId: params.context.agentId, isSidechain: true } : {}),
      }),
    );
  const budget = params.tokenBudget && !params.context.agentId ? createTokenBudgetTracker(params.tokenBudget) : null;
  function* end(terminal: Terminal): Generator<AgentEvent, Terminal> {
    yield {
      type: "result",
      terminal,
      usage,
      numTurns: terminal.turnCount,
      durationMs: deps.now() - startedAt,
      durationApiMs: apiMs,
      permissionDenials: denials,
      ...(budget ? { tokenBudget: budget.status(usage.outputTokens) } : {}),
    };
    return terminal;
  }

  /** Claude Code runs `SessionStart` (source `compact`) after a compaction; what it says joins the new context. */
  async function* sessionStartAfterCompaction(compacted: ConversationMessage[]): AsyncGenerator<AgentEvent, ConversationMessage[]> {
    const started = await dispatchSessionStart(hooks, "compact", { signal, now: deps.now, model: params.model });
    yield* started.events;
    if (started.outcome.additionalContext.length === 0) return compacted;
    lastUuid = compacted.at(-1)?.uuid ?? lastUuid;
    const notes = started.outcome.additionalContext.map((text) => meta(text));
    for (const note of notes) yield { type: "message", message: note };
    return [...compacted, ...notes];
  }

  /** Tool results saved to disk by the per-message budget, and the preview each was replaced with. */
  const savedResults = new Map<string, string>();
  let state: QueryState = {
    messages: params.messages,
    context: { ...params.context, signal, tools: params.tools, messages: params.messages },
    model: params.model,
    turnCount: 1,
    maxOutputTokensOverride: undefined,
    maxOutputTokensRecoveryCount: 0,
    streamCutRecoveryCount: 0,
    hasAttemptedReactiveCompact: false,
    hasDrainedCollapses: false,
    stopHookActive: false,
    batchesUsed: 0,
    lastInputTokens: null,
    transition: undefined,
  };

  while (true) {
    if (signal.aborted) return yield* end({ reason: "aborted_streaming", turnCount: state.turnCount });

    // The reference's prefetch: memory and skills are re-checked (by mtime) while compaction runs.
    const prefetch = params.memory?.prefetch().catch(() => undefined);
    let messages = state.messages;
    const compactionInput = (conversation: ConversationMessage[]): CompactionInput => ({
      messages: conversation,
      model: state.model,
      systemPrompt: params.systemPrompt,
      signal,
      client: deps.model,
      lastInputTokens: state.lastInputTokens,
    });
    for (const stage of ["snip", "microcompact", "collapse", "autocompact"] as const) {
      const compacted = await deps.compactor[stage]?.(compactionInput(messages));
      if (!compacted) continue;
      yield* emitCompaction(compacted);
      forgetUnseenFiles(state.context.readFileState, compacted);
      messages = compacted.messages;
      lastUuid = messages.at(-1)?.uuid ?? lastUuid;
      messages = yield* sessionStartAfterCompaction(messages);
    }

    for (const text of turnNotes(state.context, messages.at(-1))) {
      const note = meta(text);
      yield { type: "message", message: note };
      messages = [...messages, note];
    }
    // Nothing will make room and the request would surely be refused: stop before sending it.
    const blocked = deps.compactor.blockingLimit?.(compactionInput(messages));
    if (blocked) {
      yield { type: "error", code: "blocking_limit", message: blocked.message, status: null };
      return yield* end({ reason: "blocking_limit", turnCount: state.turnCount, error: { code: "blocking_limit", message: blocked.message } });
    }
    const app = state.context.getAppState();
    // A skill's model holds for the main conversation while its prompt runs; a subagent keeps its own.
    const conversationModel = params.context.agentId ? state.model : (app.skillModel ?? state.model);
    const requestModel = modelForMode(app.permissionMode, conversationModel, params.planModel);
    const prefetched = await prefetch;
    for (const notice of prefetched?.notices ?? []) yield { type: "notice", level: "warning", code: notice.code, message: notice.message };
    let messagesForQuery = withUserContext(messagesAfterCompactBoundary(messages), prefetched?.reminder ?? null, services.timestamp());
    const resultFiles = toolResultFilesOf(state.context);
    if (resultFiles) {
      const budgeted = await applyToolResultBudget(messagesForQuery, {
        maxChars: config.maxToolResultsPerMessageChars,
        files: resultFiles,
        signal,
        replaced: savedResults,
      });
      yield* budgeted.events;
      messagesForQuery = budgeted.messages;
    }
    // Thinking, caching and the task budget are decided per model: the fallback model gets a request of its own.
    const requestFor = (model: string) => {
      const thinking = thinkingConfigFor(config.thinking, model);
      const taskBudget = taskBudgetForRequest(deps.compactor, model);
      return buildModelRequest({
        model,
        maxOutputTokens: state.maxOutputTokensOverride ?? config.maxOutputTokens,
        systemPrompt: params.systemPrompt,
        messages: messagesForQuery,
        // The context's tools: a context modifier (ToolSearch) may have loaded more since the first request.
        tools: state.context.tools,
        promptCaching: promptCachingFor(config.promptCaching, model),
        ...(thinking ? { thinking } : {}),
        ...(params.betas ? { betas: params.betas } : {}),
        ...(params.metadata ? { metadata: params.metadata } : {}),
        ...(taskBudget ? { taskBudget } : {}),
      });
    };
    const request = requestFor(requestModel);
    if (state.turnCount === 1 && state.transition === undefined) {
      const ignored = taskBudgetIgnoredNotice(deps.compactor, requestModel);
      if (ignored) yield ignored;
    }
    yield { type: "request-start", model: requestModel, turn: state.turnCount };

    const context: ToolUseContext = { ...state.context, messages: messagesForQuery };
    const assistantUuid = deps.uuid();
    const assistant: AssistantMessage = {
      type: "assistant",
      uuid: assistantUuid,
      parentUuid: lastUuid,
      timestamp: services.timestamp(),
      message: { id: "", role: "assistant", model: requestModel, content: [] },
      ...(params.context.agentId ? { agentId: params.context.agentId, isSidechain: true } : {}),
    };
    const executor = new StreamingToolExecutor(context, assistant, services, config.maxToolConcurrency, state.batchesUsed);
    const toolResults: UserMessage[] = [];
    const toolCalls: ToolUseBlock[] = [];
    // Results that finish while the model still streams wait until the assistant message is out,
    // so the transcript always has a call before its result.
    const early: ExecutorItem[] = [];
    let assistantOut = false;
    function* drain(items: ExecutorItem[]): Generator<AgentEvent> {
      for (const item of items) {
        if (item.kind === "event") {
          yield item.event;
          continue;
        }
        if (!assistantOut) {
          early.push(item);
          continue;
        }
        const { outcome } = item;
        if (outcome.stop && !hookStop) hookStop = outcome.stop;
        if (outcome.denied) {
          const call = toolCalls.find((block) => block.id === outcome.record.toolUseId);
          denials.push({ toolName: outcome.record.name, toolUseId: outcome.record.toolUseId, input: call?.input });
        }
        yield { type: "tool-end", record: outcome.record };
        const message = chain(outcome.message);
        toolResults.push(message);
        yield { type: "message", message };
      }
    }

    const discard = (messageId: string, content: ContentBlock[], reason: string) =>
      discardedAttemptEvents({
        uuid: deps.uuid(),
        parentUuid: lastUuid,
        timestamp: services.timestamp(),
        messageId,
        model: requestModel,
        content,
        reason,
        agentId: params.context.agentId,
      });
    const stream = callModel({
      client: deps.model,
      request,
      requestFor,
      signal,
      retry: config.retry,
      ...(params.fallbackModel ? { fallbackModel: params.fallbackModel } : {}),
      now: deps.now,
      random: deps.random,
      sleep: deps.sleep,
    });
    let result: CallModelResult;
    while (true) {
      const step = await stream.next();
      if (step.done) {
        result = step.value;
        break;
      }
      const event = step.value;
      if (event.type === "discard") {
        // The blocks of the abandoned attempt go with it; the retry streams its own.
        yield* discard(event.messageId, assistant.message.content.splice(0), event.reason);
        continue;
      }
      if (event.type === "model-fallback") state = { ...state, model: event.to };
      const mapped = mapModelEvent(event);
      if (mapped) yield mapped;
      if (event.type === "block-stop") {
        const completed = stream.completedBlock(event.index);
        if (completed) {
          assistant.message.content.push(completed);
          if (completed.type === "tool_use") {
            toolCalls.push(completed);
            executor.add(completed);
          }
        }
      }
      const ready = executor.takeReady();
      if (ready.length > 0) yield* drain(ready);
    }
    apiMs += result.record.endedAt - result.record.startedAt;

    if (result.kind === "failed") {
      for await (const item of executor.remaining()) yield* drain([item]);
      if (result.error.code === "aborted") return yield* end({ reason: "aborted_streaming", turnCount: state.turnCount });
      if (result.error.code === "prompt_too_long" && !state.hasDrainedCollapses) {
        // Withheld: committing the staged collapses may make room without summarising the conversation.
        const drained = await deps.compactor.drainCollapses?.(compactionInput(messages));
        if (drained) {
          yield* emitCompaction(drained);
          state = { ...state, messages: drained.messages, hasDrainedCollapses: true, transition: { reason: "collapse_drain" } };
          continue;
        }
      }
      if (result.error.code === "prompt_too_long" && !state.hasAttemptedReactiveCompact) {
        // Withheld: the user sees the error only if compaction cannot make room.
        const compacted = await deps.compactor.reactive(compactionInput(messages));
        if (compacted) {
          yield* emitCompaction(compacted);
          forgetUnseenFiles(state.context.readFileState, compacted);
          lastUuid = compacted.messages.at(-1)?.uuid ?? lastUuid;
          const withContext = yield* sessionStartAfterCompaction(compacted.messages);
          state = { ...state, messages: withContext, hasAttemptedReactiveCompact: true, transition: { reason: "reactive_compact" } };
          continue;
        }
      }
      yield { type: "error", code: result.error.code, message: result.error.message, status: result.error.status };
      const reason = result.error.code === "prompt_too_long" ? "prompt_too_long" : "model_error";
      return yield* end({ reason, turnCount: state.turnCount, error: { code: result.error.code, message: result.error.message } });
    }

    const assembled = result.message;
    const stoppedAtLimit = result.kind === "complete" && assembled.stopReason === "max_tokens";
    if (stoppedAtLimit && state.maxOutputTokensOverride === undefined && state.maxOutputTokensRecoveryCount === 0 && toolCalls.length === 0) {
      // Withheld: retry the same request once with a higher output limit; the cut answer is discarded.
      yield* discard(assembled.id, assembled.content, "output limit reached; retrying with a higher limit");
      state = { ...state, messages, maxOutputTokensOverride: config.escalatedMaxOutputTokens, transition: { reason: "max_tokens_escalate" } };
      continue;
    }

    assistant.message = {
      id: assembled.id,
      type: "message",
      role: "assistant",
      model: assembled.model || requestModel,
      content: assembled.content,
      stop_reason: assembled.stopReason,
      stop_sequence: assembled.stopSequence,
      usage: assembled.usage,
    };
    if (assembled.requestId) assistant.requestId = assembled.requestId;
    assistant.modelCall = result.record;
    if (result.kind === "cut") assistant.isPartial = true;
    usage = addUsage(usage, assembled.usage);
    const lastInputTokens =
      (assembled.usage.input_tokens ?? 0) + (assembled.usage.cache_read_input_tokens ?? 0) + (assembled.usage.cache_creation_input_tokens ?? 0);
    const assistantMessage = chain(assistant);
    yield { type: "message", message: assistantMessage };
    assistantOut = true;

    yield* drain(early.splice(0));
    // Streamed, not collected: a permission question must reach the user while its call waits.
    for await (const item of executor.remaining()) yield* drain([item]);
    const nextContext = executor.currentContext;
    const batchesUsed = state.batchesUsed + executor.batchesUsed;
    const conversation = [...messages, assistantMessage, ...toolResults];

    if (signal.aborted) {
      return yield* end({ reason: toolCalls.length > 0 ? "aborted_tools" : "aborted_streaming", turnCount: state.turnCount });
    }
    if (hookStop) {
      const why = hookStop.stopReason ? `: ${hookStop.stopReason}` : "";
      yield { type: "notice", level: "warning", code: "hook_stopped", message: `A hook stopped the run (${hookStop.hookName})${why}` };
      return yield* end({ reason: "hook_stopped", turnCount: state.turnCount });
    }

    const base = { ...state, context: nextContext, batchesUsed, lastInputTokens, maxOutputTokensOverride: undefined };
    if (result.kind === "cut") {
      const attempt = state.streamCutRecoveryCount + 1;
      if (attempt > config.maxStreamCutRecoveries) {
        yield { type: "error", code: result.error.code, message: result.error.message, status: result.error.status };
        return yield* end({ reason: "model_error", turnCount: state.turnCount, error: { code: result.error.code, message: result.error.message } });
      }
      yield { type: "notice", level: "warning", code: "stream_cut", message: `The response was cut off (${result.error.message}); continuing.` };
      const note = meta(STREAM_CUT_RESUME_MESSAGE);
      yield { type: "message", message: note };
      state = { ...base, messages: [...conversation, note], streamCutRecoveryCount: attempt, transition: { reason: "stream_cut_resume", attempt } };
      continue;
    }

    if (toolCalls.length > 0) {
      const turnCount = state.turnCount + 1;
      if (params.maxTurns !== undefined && turnCount > params.maxTurns) {
        yield { type: "notice", level: "warning", code: "max_turns", message: `Reached the maximum number of turns (${params.maxTurns}).` };
        return yield* end({ reason: "max_turns", turnCount: state.turnCount });
      }
      state = { ...base, messages: conversation, turnCount, stopHookActive: false, transition: { reason: "tool_use" } };
      continue;
    }

    if (stoppedAtLimit) {
      const attempt = state.maxOutputTokensRecoveryCount + 1;
      if (attempt <= config.maxOutputTokensRecoveries) {
        const note = meta(MAX_TOKENS_RESUME_MESSAGE);
        yield { type: "message", message: note };
        state = {
          ...base,
          messages: [...conversation, note],
          // The raised limit stays for the continuations: the answer did not fit even with it.
          maxOutputTokensOverride: state.maxOutputTokensOverride,
          maxOutputTokensRecoveryCount: attempt,
          transition: { reason: "max_tokens_resume", attempt },
        };
        continue;
      }
      yield { type: "notice", level: "warning", code: "max_output_tokens", message: "The response hit the output token limit again; stopping here." };
    }

    const stopped = await dispatchRecorded(hooks, "Stop", { stop_hook_active: state.stopHookActive }, { signal, now: deps.now });
    yield* stopped.events;
    const stop = stopped.outcome;
    if (stop.preventContinuation) return yield* end({ reason: "stop_hook_prevented", turnCount: state.turnCount });
    if (stop.blocked) {
      const note = meta(`Stop hook feedback:\n${stop.blocked.reason}`);
      yield { type: "message", message: note };
      state = { ...base, messages: [...conversation, note], stopHookActive: true, transition: { reason: "stop_hook_blocking" } };
      continue;
    }
    const background = backgroundAgentsOf(nextContext);
    if (background && (background.hasPending() || (params.awaitBackgroundAgents && background.running().length > 0))) {
      await background.waitForNotification(signal);
      if (signal.aborted) return yield* end({ reason: "aborted_streaming", turnCount: state.turnCount });
      state = { ...base, messages: conversation, stopHookActive: false, transition: { reason: "background_agent" } };
      continue;
    }
    const decision = budget?.check(usage.outputTokens);
    if (decision?.action === "continue") {
      const turnCount = state.turnCount + 1;
      if (params.maxTurns !== undefined && turnCount > params.maxTurns) {
        yield { type: "notice", level: "warning", code: "max_turns", message: `Reached the maximum number of turns (${params.maxTurns}).` };
        return yield* end({ reason: "max_turns", turnCount: state.turnCount });
      }
      const note = meta(decision.nudge);
      yield { type: "message", message: note };
      const continuation = (state.transition?.reason === "token_budget_continuation" ? state.transition.continuation : 0) + 1;
      state = {
        ...base,
        messages: [...conversation, note],
        turnCount,
        stopHookActive: false,
        transition: { reason: "token_budget_continuation", continuation },
      };
      continue;
    }
    return yield* end({ reason: "completed", turnCount: state.turnCount });
  }
}

function* emitCompaction(result: CompactionResult): Generator<AgentEvent> {
  yield* result.events;
  for (const message of result.added) yield { type: "message", message };
}
