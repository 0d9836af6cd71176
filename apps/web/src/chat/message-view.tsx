"use client";

import { useState } from "react";
import type { ChatItem, ToolCallView } from "./chat-types";
import { estimateCostUsd } from "@cairn/core/timeline";
import { formatDuration, formatTokens } from "./describe";
import { formatCost } from "./session-cost";
import { tokenBudgetText } from "./token-budget-text";
import { MarkdownText } from "./markdown-lazy";
import { RuleSuggestion } from "../permission/rule-suggestion";
import { ToolCallCard } from "./tool-call-card";

type Props = {
  item: ChatItem;
  toolCalls: Record<string, ToolCallView>;
  onOpenFile?: (path: string) => void;
  onFork?: (messageUuid: string) => void;
  onRewind?: (messageUuid: string) => void;
  /** Absent in read-only views: a rule suggestion is then only shown. */
  onAllowRule?: (rule: string) => Promise<void>;
};

/** One entry of the conversation. Everything from the model or a tool renders as text, never as HTML. */
export function MessageView({ item, toolCalls, onOpenFile, onFork, onRewind, onAllowRule }: Props) {
  switch (item.kind) {
    case "user":
      return (
        <div className="message-user-row">
          <div className="message message-user" data-testid="message-user">
            {item.text}
          </div>
          {onFork && !item.id.startsWith("local:") ? (
            <button type="button" className="fork-button" title="Fork a new session from this message" onClick={() => onFork(item.id)}>
              Fork
            </button>
          ) : null}
          {onRewind && !item.id.startsWith("local:") ? (
            <button
              type="button"
              className="fork-button"
              data-testid="message-rewind"
              title="Rewind the files, the conversation or both to just before this message"
              onClick={() => onRewind(item.id)}
            >
              Rewind here
            </button>
          ) : null}
        </div>
      );
    case "assistant":
      return (
        <div className="message message-assistant" data-testid="message-assistant" data-streaming={item.streaming} data-message-id={item.id}>
          {item.blocks.map((block, index) => {
            if (!block) return null;
            if (block.type === "text") return block.text ? <MarkdownText key={index} text={block.text} /> : null;
            if (block.type === "thinking") return <Thinking key={index} text={block.text} redacted={block.redacted} streaming={item.streaming} />;
            const call = toolCalls[block.toolUseId];
            return call ? <ToolCallCard key={block.toolUseId} call={call} {...(onOpenFile ? { onOpenFile } : {})} /> : null;
          })}
          {item.streaming ? <span className="cursor" aria-label="streaming" /> : null}
          {item.partial ? (
            <div className="message-note" data-testid="message-incomplete">
              This response did not complete.
            </div>
          ) : null}
        </div>
      );
    case "compact":
      return (
        <div className="message-marker compact" data-testid="compact-boundary">
          Conversation compacted ({item.trigger}): {formatTokens(item.preTokens)}
          {item.postTokens !== undefined ? ` → ${formatTokens(item.postTokens)}` : ""} tokens
          {item.summarizedCount !== undefined ? `, ${item.summarizedCount} messages summarised` : ""}
        </div>
      );
    case "notice":
      return (
        <div className={`message-marker notice ${item.level}`} data-testid="chat-notice" data-code={item.code}>
          {item.message}
        </div>
      );
    case "rule-suggestion":
      return <RuleSuggestion toolName={item.toolName} rule={item.rule} denials={item.denials} {...(onAllowRule ? { onAllow: onAllowRule } : {})} />;
    case "retry":
      return (
        <div className="message-marker retry" data-testid="chat-retry">
          Retrying ({item.attempt}/{item.maxAttempts}) in {formatDuration(item.delayMs)}
          {item.status !== null ? ` after HTTP ${item.status}` : ""}: {item.message}
        </div>
      );
    case "error":
      return (
        <div className="message-marker error" role="alert" data-testid="chat-error" data-code={item.code}>
          Error ({item.code}): {item.message}
        </div>
      );
    case "result":
      return (
        <div className={`message-marker result reason-${item.reason}`} data-testid="run-result" data-reason={item.reason}>
          {resultText(item.reason)} · {item.numTurns} turn{item.numTurns === 1 ? "" : "s"} · {formatDuration(item.durationMs)} ·{" "}
          {formatTokens(item.usage.inputTokens)} in / {formatTokens(item.usage.outputTokens)} out
          {item.usage.cacheReadInputTokens + item.usage.cacheCreationInputTokens > 0
            ? ` · cache ${formatTokens(item.usage.cacheReadInputTokens)} read / ${formatTokens(item.usage.cacheCreationInputTokens)} write`
            : ""}
          {item.model ? <span data-testid="run-result-cost"> · {formatCost(estimateCostUsd(item.model, item.usage))}</span> : null}
          {item.tokenBudget ? (
            <span data-testid="token-budget" data-used={item.tokenBudget.used} data-budget={item.tokenBudget.budget}>
              {" "}
              · {tokenBudgetText(item.tokenBudget)}
            </span>
          ) : null}
          {item.errorMessage ? ` · ${item.errorMessage}` : ""}
        </div>
      );
  }
}

function resultText(reason: string): string {
  switch (reason) {
    case "completed":
      return "Done";
    case "aborted_streaming":
    case "aborted_tools":
      return "Interrupted";
    case "max_turns":
      return "Stopped at the turn limit";
    case "model_error":
      return "Stopped by a model error";
    case "prompt_too_long":
    case "blocking_limit":
      return "Stopped: the conversation is too long";
    default:
      return `Stopped (${reason})`;
  }
}

function Thinking({ text, redacted, streaming }: { text: string; redacted: boolean; streaming: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="thinking" data-testid="thinking">
      <button type="button" className="thinking-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? "▾" : "▸"} {redacted ? "Thinking (redacted)" : streaming ? "Thinking…" : "Thought"}
      </button>
      {open && !redacted ? <pre className="thinking-text">{text}</pre> : null}
    </div>
  );
}
