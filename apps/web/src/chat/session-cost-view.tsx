"use client";

import { useMemo } from "react";
import type { ChatItem } from "./chat-types";
import { formatTokens } from "./describe";
import { formatCost, sessionCost } from "./session-cost";

/** The session's estimated cost and tokens, cache reads and writes counted. */
export function SessionCost({ items }: { items: readonly ChatItem[] }) {
  const totals = useMemo(() => sessionCost(items), [items]);
  const title = `Estimated from Anthropic's list prices. Input ${totals.inputTokens}, output ${totals.outputTokens}, cache read ${totals.cacheReadInputTokens}, cache write ${totals.cacheCreationInputTokens} tokens.`;
  return (
    <span className="session-cost muted" data-testid="session-cost" data-cost-usd={totals.costUsd.toFixed(6)} title={title}>
      {formatCost(totals.costUsd)} · {formatTokens(totals.inputTokens)} in / {formatTokens(totals.outputTokens)} out · cache{" "}
      {formatTokens(totals.cacheReadInputTokens)} read / {formatTokens(totals.cacheCreationInputTokens)} write
    </span>
  );
}
