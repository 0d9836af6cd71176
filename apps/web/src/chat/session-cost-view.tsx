"use client";

import { useMemo } from "react";
import type { ChatItem, ToolCallView } from "./chat-types";
import { formatTokens } from "./describe";
import { formatCost, sessionCost } from "./session-cost";

/** The session's estimated cost and tokens, cache reads and writes and auto mode's classifier requests counted. */
export function SessionCost({ items, toolCalls }: { items: readonly ChatItem[]; toolCalls: Readonly<Record<string, ToolCallView>> }) {
  const totals = useMemo(() => sessionCost(items, toolCalls), [items, toolCalls]);
  const classifier = totals.classifierRequests > 0 ? ` Includes ${totals.classifierRequests} auto-mode classifier request(s).` : "";
  const title = `Estimated from Anthropic's list prices. Input ${totals.inputTokens}, output ${totals.outputTokens}, cache read ${totals.cacheReadInputTokens}, cache write ${totals.cacheCreationInputTokens} tokens.${classifier}`;
  return (
    <span
      className="session-cost muted"
      data-testid="session-cost"
      data-cost-usd={totals.costUsd.toFixed(6)}
      data-classifier-requests={totals.classifierRequests}
      title={title}
    >
      {formatCost(totals.costUsd)} · {formatTokens(totals.inputTokens)} in / {formatTokens(totals.outputTokens)} out · cache{" "}
      {formatTokens(totals.cacheReadInputTokens)} read / {formatTokens(totals.cacheCreationInputTokens)} write
    </span>
  );
}
