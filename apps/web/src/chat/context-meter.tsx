import { formatTokens } from "./describe";

type Props = {
  tokens: number | null;
  window: number;
  compactions: readonly { preTokens: number; postTokens: number }[];
  onCompact?: () => void;
  compacting: boolean;
};

/** Context in use against the model's window, with a mark where each compaction started. */
export function ContextMeter({ tokens, window, compactions, onCompact, compacting }: Props) {
  const used = tokens ?? 0;
  const ratio = window > 0 ? Math.min(1, used / window) : 0;
  const level = ratio > 0.85 ? "high" : ratio > 0.6 ? "medium" : "low";
  const last = compactions.at(-1);
  const label =
    tokens === null
      ? `Context: not measured yet (window ${formatTokens(window)} tokens)`
      : `Context: ${formatTokens(used)} of ${formatTokens(window)} tokens (${Math.round(ratio * 100)}%)`;
  return (
    <div
      className="context-meter"
      data-testid="context-meter"
      data-tokens={tokens ?? ""}
      data-window={window}
      data-compactions={compactions.length}
      title={label}
    >
      <div className="meter-track" role="meter" aria-label="Context used" aria-valuemin={0} aria-valuemax={window} aria-valuenow={used} aria-valuetext={label}>
        <div className={`meter-fill ${level}`} style={{ width: `${ratio * 100}%` }} />
        {compactions.map((compaction, index) => (
          <span
            key={index}
            className="meter-mark"
            style={{ left: `${Math.min(100, (compaction.preTokens / window) * 100)}%` }}
            title={`Compacted at ${formatTokens(compaction.preTokens)} → ${formatTokens(compaction.postTokens)}`}
          />
        ))}
      </div>
      <span className="meter-label">
        {tokens === null ? "—" : formatTokens(used)} / {formatTokens(window)}
        {last ? ` · compacted ${compactions.length}×` : ""}
      </span>
      {onCompact ? (
        <button
          type="button"
          className="small"
          data-testid="context-compact"
          disabled={compacting}
          onClick={onCompact}
          title="Summarise the conversation to free context"
        >
          {compacting ? "Compacting…" : "Compact"}
        </button>
      ) : null}
    </div>
  );
}
