import type { ConversationMessage } from "../schema/messages.ts";
import { applyCollapses, collapsibleSpans, summarizeSpan, type Collapse } from "./collapse-spans.ts";
import { estimateTextTokens, estimateTokens } from "./tokens.ts";

export type CollapseSettings = {
  /** Past this fraction of the auto-compact threshold, older spans are summarised and staged (the conversation sent is unchanged). */
  stageRatio: number;
  /** Past this fraction, the staged collapses are committed: their summaries replace the spans in what is sent. */
  commitRatio: number;
  /** Responses (with their results) at the end that are never collapsed. */
  keepRecentTurns: number;
  /** A span is worth collapsing only if it holds at least this many tokens. */
  minSpanTokens: number;
};

export type CollapseOutcome = {
  messages: ConversationMessage[];
  /** Collapses put in place by this call, with the tokens their spans held. */
  applied: Array<{ collapse: Collapse; freedTokens: number }>;
  /** How many of them were committed just now (the rest were committed before and applied again). */
  newlyCommitted: number;
};

/**
 * Context collapse, between micro-compact and auto-compact: older spans of the conversation are
 * summarised ahead of need (staged) and only put in place (committed) once the context is nearly
 * full, so the prompt cache is broken once, late, and no model-written summary of the whole
 * conversation is needed. The original messages stay in the transcript; only what is sent changes.
 */
export function createContextCollapse(settings: CollapseSettings, uuid: () => string) {
  let staged: Collapse[] = [];
  let committed: Collapse[] = [];

  const present = (messages: readonly ConversationMessage[]) => {
    const uuids = new Set(messages.map((message) => message.uuid));
    return (collapse: Collapse) => uuids.has(collapse.id) || uuids.has(collapse.uuids[0]!);
  };

  const stage = (messages: readonly ConversationMessage[]) => {
    const exclude = new Set([...staged, ...committed].flatMap((collapse) => [collapse.id, ...collapse.uuids]));
    for (const span of collapsibleSpans(messages, { keepRecentTurns: settings.keepRecentTurns, exclude })) {
      const spanTokens = estimateTokens(span);
      if (spanTokens < settings.minSpanTokens) continue;
      const summary = summarizeSpan(span);
      staged.push({ id: uuid(), uuids: span.map((message) => message.uuid), summary, spanTokens, summaryTokens: estimateTextTokens(summary) });
    }
  };

  const commit = (messages: ConversationMessage[], collapses: Collapse[]): CollapseOutcome | null => {
    const outcome = applyCollapses(messages, collapses);
    if (outcome.applied.length === 0) return null;
    const fresh = new Set(staged.map((collapse) => collapse.id));
    const newlyCommitted = outcome.applied.filter((entry) => fresh.has(entry.collapse.id)).length;
    committed = [...committed, ...staged];
    staged = [];
    return { ...outcome, newlyCommitted };
  };

  return {
    /** Before each request: committed collapses applied again where their spans came back (a reloaded history), new spans staged, staged ones committed when the context is nearly full. */
    run(messages: ConversationMessage[], tokens: number, threshold: number): CollapseOutcome | null {
      const isPresent = present(messages);
      committed = committed.filter(isPresent);
      staged = staged.filter(isPresent);
      if (tokens >= threshold * settings.stageRatio) stage(messages);
      if (tokens >= threshold * settings.commitRatio && staged.length > 0) return commit(messages, [...committed, ...staged]);
      const again = applyCollapses(messages, committed);
      return again.applied.length > 0 ? { ...again, newlyCommitted: 0 } : null;
    },
    /** After a prompt-too-long answer: every staged collapse is committed at once, before anything more drastic. */
    drain(messages: ConversationMessage[]): CollapseOutcome | null {
      staged = staged.filter(present(messages));
      if (staged.length === 0) return null;
      return commit(messages, [...committed, ...staged]);
    },
    state(): { staged: number; committed: number } {
      return { staged: staged.length, committed: committed.length };
    },
  };
}
