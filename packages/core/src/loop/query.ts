import type { CompactionInput, CompactionResult } from "../compact/port.ts";
import { forgetUnseenFiles } from "../compact/read-file-state.ts";
import { noHooks } from "../hooks/port.ts";
import { dispatchRecorded } from "../hooks/session-events.ts";
import { callModel, type CallModelResult } from "../model/call-model.ts";
import { allowAllGate, headlessPrompter } from "../permissions/port.ts";
import type { ContentBlock } from "../schema/content.ts";
import type { AgentEvent, Terminal } from "../schema/events.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import { StreamingToolExecutor } from "../tools/executor.ts";
import type { PipelineServices } from "../tools/pipeline-types.ts";
import type { ToolUseContext } from "../tools/tool.ts";
import { toolResultFilesOf } from "../tools/tool-result-files.ts";
import { backgroundAgentsOf } from "../agents/background-agents.ts";
import { completeAssistantMessage, inputTokensOf, streamingAssistantMessage } from "./assistant-turn-message.ts";
import { emitCompaction, sessionStartAfterCompaction } from "./compaction-steps.ts";
import { defaultQueryConfig, MAX_TOKENS_RESUME_MESSAGE, STREAM_CUT_RESUME_MESSAGE, type QueryConfig } from "./config.ts";
import { discardedAttemptEvents } from "./discarded-attempt.ts";
import { MessageChain } from "./message-chain.ts";
import { messagesAfterCompactBoundary, withUserContext } from "./messages.ts";
import { modelRequestBuilder } from "./model-request-builder.ts";
import type { QueryParams } from "./query-params.ts";
import { initialQueryState, type QueryState } from "./query-state.ts";
import { modelForMode } from "./plan-mode.ts";
import { RunTally } from "./run-tally.ts";
import { mapModelEvent } from "./stream-events.ts";
import { taskBudgetIgnoredNotice } from "./task-budget.ts";
import { createTokenBudgetTracker } from "./token-budget.ts";
import { applyToolResultBudget } from "./tool-result-budget.ts";
import { TurnToolResults } from "./turn-tool-results.ts";
import { turnNotes } from "./turn-notes.ts";

const PROACTIVE_COMPACTION_STAGES = ["snip", "microcompact", "collapse", "autocompact"] as const;

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
  const budget = params.tokenBudget && !params.context.agentId ? createTokenBudgetTracker(params.tokenBudget) : null;
  const tally = new RunTally(deps.now, budget);
  const chain = new MessageChain(params.messages.at(-1)?.uuid ?? null, { uuid: deps.uuid, timestamp: services.timestamp, agentId: params.context.agentId });
  function* end(terminal: Terminal): Generator<AgentEvent, Terminal> {
    yield tally.result(terminal);
    return terminal;
  }

  /** Tool results saved to disk by the per-message budget, and the preview each was replaced with. */
  const savedResults = new Map<string, string>();
  let state: QueryState = initialQueryState(params);
  /** After any compaction: its events and messages, files it dropped forgotten, then `SessionStart` (source `compact`). */
  async function* afterCompaction(compacted: CompactionResult): AsyncGenerator<AgentEvent, ConversationMessage[]> {
    yield* emitCompaction(compacted);
    forgetUnseenFiles(state.context.readFileState, compacted);
    chain.continueAfter(compacted.messages.at(-1));
    const notes = yield* sessionStartAfterCompaction(hooks, chain, { signal, now: deps.now, model: params.model });
    return [...compacted.messages, ...notes];
  }

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
    for (const stage of PROACTIVE_COMPACTION_STAGES) {
      const compacted = await deps.compactor[stage]?.(compactionInput(messages));
      if (compacted) messages = yield* afterCompaction(compacted);
    }

    for (const text of turnNotes(state.context, messages.at(-1))) {
      const note = chain.meta(text);
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
    const requestFor = modelRequestBuilder({
      config,
      params,
      compactor: deps.compactor,
      maxOutputTokens: state.maxOutputTokensOverride ?? config.maxOutputTokens,
      messages: messagesForQuery,
      conversation: messages,
      tools: state.context.tools,
    });
    const request = requestFor(requestModel);
    if (state.turnCount === 1 && state.transition === undefined) {
      const ignored = taskBudgetIgnoredNotice(deps.compactor, requestModel);
      if (ignored) yield ignored;
    }
    yield { type: "request-start", model: requestModel, turn: state.turnCount };

    const context: ToolUseContext = { ...state.context, messages: messagesForQuery };
    const assistant = streamingAssistantMessage({
      uuid: deps.uuid(),
      parentUuid: chain.last,
      timestamp: services.timestamp(),
      model: requestModel,
      agentId: params.context.agentId,
    });
    const executor = new StreamingToolExecutor(context, assistant, services, config.maxToolConcurrency, state.batchesUsed);
    const tools = new TurnToolResults(chain, tally);
    const toolCalls = tools.calls;

    const discard = (messageId: string, content: ContentBlock[], reason: string) =>
      discardedAttemptEvents({
        uuid: deps.uuid(),
        parentUuid: chain.last,
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
      if (ready.length > 0) yield* tools.drain(ready);
    }
    tally.addModelCall(result.record);

    if (result.kind === "failed") {
      for await (const item of executor.remaining()) yield* tools.drain([item]);
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
          const withContext = yield* afterCompaction(compacted);
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

    completeAssistantMessage(assistant, result, requestModel);
    tally.addUsage(assembled.usage);
    const lastInputTokens = inputTokensOf(assembled.usage);
    const assistantMessage = chain.link(assistant);
    yield { type: "message", message: assistantMessage };

    yield* tools.afterAssistant();
    // Streamed, not collected: a permission question must reach the user while its call waits.
    for await (const item of executor.remaining()) yield* tools.drain([item]);
    const nextContext = executor.currentContext;
    const batchesUsed = state.batchesUsed + executor.batchesUsed;
    const conversation = [...messages, assistantMessage, ...tools.messages];

    if (signal.aborted) {
      return yield* end({ reason: toolCalls.length > 0 ? "aborted_tools" : "aborted_streaming", turnCount: state.turnCount });
    }
    const { hookStop } = tally;
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
      const note = chain.meta(STREAM_CUT_RESUME_MESSAGE);
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
        const note = chain.meta(MAX_TOKENS_RESUME_MESSAGE);
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
      const note = chain.meta(`Stop hook feedback:\n${stop.blocked.reason}`);
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
    const decision = budget?.check(tally.usage.outputTokens);
    if (decision?.action === "continue") {
      const turnCount = state.turnCount + 1;
      if (params.maxTurns !== undefined && turnCount > params.maxTurns) {
        yield { type: "notice", level: "warning", code: "max_turns", message: `Reached the maximum number of turns (${params.maxTurns}).` };
        return yield* end({ reason: "max_turns", turnCount: state.turnCount });
      }
      const note = chain.meta(decision.nudge);
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
