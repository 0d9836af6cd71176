import { hookRunsOf } from "../tools/hook-runs.ts";
import { messagesAfterCompactBoundary } from "../loop/messages.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import { attachmentText, collectRecentFiles } from "./attachments.ts";
import { buildCompactedConversation } from "./boundary.ts";
import { keepPolicy, recentFilesPolicy, type CompactorDeps, type CompactorSettings } from "./compactor-options.ts";
import { isCompactAttachment } from "./conversation.ts";
import { CompactionError } from "./errors.ts";
import type { CompactionInput, CompactionResult } from "./port.ts";
import { splitForCompaction } from "./split.ts";
import { summaryMessageText } from "./summary-prompt.ts";
import { requestSummary } from "./summarize.ts";
import { estimateTokens, type ContextLimits } from "./tokens.ts";
import type { CompactTrigger } from "./types.ts";

export type CompactionRun = {
  input: CompactionInput;
  trigger: CompactTrigger;
  /** From `/compact <instructions>`. */
  instructions: string | undefined;
  preTokens: number;
  /** The context compacted away in the whole conversation once this compaction is done. */
  compactedTokens: number;
  /** Tokens of system prompt and tools beside the messages, for the post-compaction estimate. */
  overheadTokens: number;
  limits: ContextLimits;
  settings: CompactorSettings;
  deps: CompactorDeps;
};

export type CompactionOutcome =
  | { ok: true; result: CompactionResult; postTokens: number; summarizedCount: number }
  | { ok: false; error: CompactionError; events: AgentEvent[] };

type HookStep = { instructions: string[]; events: AgentEvent[]; blocked: string | null };

/** PreCompact hooks: their `additionalContext` joins the summary instructions; a block (exit 2) skips the compaction. */
async function runPreCompactHooks(run: CompactionRun): Promise<HookStep> {
  const instructions = run.instructions?.trim() ? [run.instructions.trim()] : [];
  const step: HookStep = { instructions, events: [], blocked: null };
  const { hooks } = run.deps;
  if (!hooks) return step;
  // Claude Code's hook contract knows two triggers; reactive compaction is automatic.
  const trigger = run.trigger === "manual" ? "manual" : "auto";
  try {
    const startedAt = run.deps.now();
    const outcome = await hooks.dispatch(
      "PreCompact",
      { trigger, custom_instructions: run.instructions?.trim() || null },
      { signal: run.input.signal, matchValue: trigger },
    );
    if (outcome.ran.length > 0)
      step.events.push({ type: "hook-runs", event: "PreCompact", runs: hookRunsOf("PreCompact", startedAt, run.deps.now(), outcome) });
    instructions.push(...outcome.additionalContext);
    for (const message of outcome.systemMessages) step.events.push({ type: "notice", level: "info", code: "hook_message", message });
    for (const error of outcome.errors) {
      step.events.push({ type: "notice", level: "warning", code: "hook_error", message: `PreCompact hook ${error.hookName}: ${error.message}` });
    }
    if (outcome.blocked) step.blocked = `${outcome.blocked.hookName}: ${outcome.blocked.reason}`;
  } catch (error) {
    if (run.input.signal.aborted) throw new CompactionError("aborted", "Compaction was aborted.", { cause: error });
    step.events.push({ type: "notice", level: "warning", code: "hook_error", message: `PreCompact hooks failed: ${String(error)}` });
  }
  return step;
}

function agentOf(messages: readonly ConversationMessage[]): { agentId?: string } {
  const agentId = messages.at(-1)?.agentId;
  return agentId === undefined ? {} : { agentId };
}

function summarizedForRequest(messages: readonly ConversationMessage[]): ConversationMessage[] {
  // A previous attachment is re-made fresh below; summarising it would only repeat file contents.
  return messages.filter((message) => message.type !== "system" && !isCompactAttachment(message));
}

/**
 * One compaction: split off the recent tail, PreCompact hooks, the summary call, then the new
 * conversation (boundary, summary, kept messages, todo list and recent files). A failed summary is
 * returned as an error, never thrown: the caller keeps the conversation as it was.
 */
export async function compactConversation(run: CompactionRun): Promise<CompactionOutcome> {
  const { input, deps, settings, limits } = run;
  const events: AgentEvent[] = [];
  const fail = (error: CompactionError): CompactionOutcome => ({ ok: false, error, events });
  try {
    if (input.signal.aborted) return fail(new CompactionError("aborted", "Compaction was aborted."));
    const view = messagesAfterCompactBoundary(input.messages);
    const split = splitForCompaction(view, keepPolicy(settings, limits));
    if (!split) return fail(new CompactionError("nothing_to_compact", "There is nothing to compact yet."));

    const hooks = await runPreCompactHooks(run);
    events.push(...hooks.events);
    if (hooks.blocked !== null) return fail(new CompactionError("hook_blocked", `A PreCompact hook blocked the compaction (${hooks.blocked}).`));

    const summary = await requestSummary({
      client: input.client,
      model: settings.summary.model ?? input.model,
      messages: summarizedForRequest(split.summarize),
      instructions: hooks.instructions,
      signal: input.signal,
      retry: deps.retry,
      now: deps.now,
      random: deps.random,
      sleep: deps.sleep,
      maxOutputTokens: settings.summary.maxOutputTokens,
      maxToolResultChars: settings.summary.maxToolResultChars,
      maxPromptTooLongRetries: settings.summary.maxPromptTooLongRetries,
    });
    events.push(...summary.events);

    const keep = split.keep.filter((message) => !isCompactAttachment(message));
    const { files, visiblePaths } = await collectRecentFiles({
      messages: input.messages,
      kept: keep,
      policy: recentFilesPolicy(settings, limits),
      ...(deps.readFile ? { readFile: deps.readFile } : {}),
      signal: input.signal,
    });
    const built = buildCompactedConversation({
      trigger: run.trigger,
      preTokens: run.preTokens,
      compactedTokens: run.compactedTokens,
      summarized: split.summarize,
      keep,
      summaryText: summaryMessageText({
        summary: summary.summary,
        trigger: run.trigger,
        keptMessages: keep.length,
        droppedMessages: summary.droppedMessages,
      }),
      attachmentText: attachmentText(deps.getTodos(), files),
      uuid: deps.uuid,
      timestamp: new Date(deps.now()).toISOString(),
      ...agentOf(input.messages),
    });
    const postTokens = estimateTokens(built.messages) + run.overheadTokens;
    if (built.boundary.compactMetadata) built.boundary.compactMetadata.postTokens = postTokens;
    events.push({
      type: "compact-boundary",
      trigger: run.trigger,
      preTokens: run.preTokens,
      postTokens,
      summarizedCount: split.summarize.length,
    });
    return {
      ok: true,
      result: { messages: built.messages, added: built.messages, events, visibleFiles: visiblePaths },
      postTokens,
      summarizedCount: split.summarize.length,
    };
  } catch (error) {
    if (error instanceof CompactionError) return fail(error);
    if (input.signal.aborted) return fail(new CompactionError("aborted", "Compaction was aborted.", { cause: error }));
    // Anything else is a bug, not a failed summary: let it surface.
    throw error;
  }
}
