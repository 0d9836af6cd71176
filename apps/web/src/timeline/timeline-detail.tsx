"use client";

import { editDiff, type TimelineDetail, type TimelineRow, type TimelineTable } from "@cairn/core/timeline";
import type { DecisionReason } from "@cairn/core/schema";
import { useState, type ReactNode } from "react";
import { formatCost, formatCount, formatDuration, formatOffset, formatTokens } from "./format";
import styles from "./timeline.module.css";

/** Text longer than this is cut until the reader asks for all of it. */
const SHOWN_CHARS = 20_000;

/**
 * Everything known about one event: its row at once, its details once loaded (`detail` null until
 * then, or `problem` if they could not be). Model and tool text is rendered as text, never as HTML.
 */
export function TimelineDetailPanel({
  timeline,
  event,
  detail,
  problem,
  onClose,
}: {
  timeline: TimelineTable;
  event: TimelineRow | null;
  detail: TimelineDetail | null;
  problem: string | null;
  onClose: () => void;
}) {
  if (!event) {
    return (
      <div data-testid="timeline-detail" data-empty="true" className={styles.empty}>
        Select an event on the axis or in the list (↑/↓, Enter) to see its details.
      </div>
    );
  }
  const duration = event.start !== null && event.end !== null ? event.end - event.start : null;
  return (
    <div data-testid="timeline-detail" data-index={event.index} data-kind={event.kind} data-loaded={detail !== null}>
      <h2 className={styles.detailTitle}>
        <span>{event.title}</span>
        <button type="button" onClick={onClose} aria-label="Close details" data-testid="timeline-detail-close">
          ✕
        </button>
      </h2>
      <dl className={styles.facts}>
        <dt>Kind</dt>
        <dd>{event.kind}</dd>
        <dt>Status</dt>
        <dd data-testid="timeline-detail-status">{event.status}</dd>
        <dt>At</dt>
        <dd>
          {formatOffset(event.at - timeline.startMs)} ({new Date(event.at).toISOString()})
        </dd>
        <dt>Duration</dt>
        <dd>{duration === null ? "not recorded" : formatDuration(duration)}</dd>
        {event.agentId ? (
          <>
            <dt>Subagent</dt>
            <dd>{event.agentId}</dd>
          </>
        ) : null}
        {detail ? <DetailFacts detail={detail} /> : null}
      </dl>
      {detail ? (
        <DetailBody detail={detail} />
      ) : problem ? (
        <p role="alert" data-testid="timeline-detail-problem">
          The details could not be loaded: {problem}
        </p>
      ) : (
        <p className={styles.empty}>Loading the details…</p>
      )}
    </div>
  );
}

/** A model request's (or a classifier call's) token counts and estimated cost. */
function TokensAndCost({ tokens, costUsd }: Pick<Extract<TimelineDetail, { kind: "model" }>, "tokens" | "costUsd">) {
  return (
    <>
      <Fact label="Tokens">
        {tokens
          ? `in ${formatTokens(tokens.input)} · out ${formatTokens(tokens.output)} · cache read ${formatTokens(tokens.cacheRead)} · cache write ${formatTokens(tokens.cacheWrite)}`
          : "not recorded"}
      </Fact>
      <Fact label="Cost (estimate)">{formatCost(costUsd)}</Fact>
    </>
  );
}

function DetailFacts({ detail }: { detail: TimelineDetail }) {
  switch (detail.kind) {
    case "model":
      return (
        <>
          <Fact label="Model">{detail.model}</Fact>
          <Fact label="Time to first token">{formatDuration(detail.ttftMs)}</Fact>
          <Fact label="Attempts">{`${detail.attempts}${detail.retries > 0 ? ` (${detail.retries} ${detail.retries === 1 ? "retry" : "retries"})` : ""}`}</Fact>
          <TokensAndCost tokens={detail.tokens} costUsd={detail.costUsd} />
          {detail.stopReason ? <Fact label="Stop reason">{detail.stopReason}</Fact> : null}
        </>
      );
    case "tool":
      return (
        <>
          <Fact label="Tool">{detail.name}</Fact>
          <Fact label="Tool use id">{detail.toolUseId}</Fact>
          {detail.batch !== null ? <Fact label="Batch">{`${detail.batch} (calls of one batch run in parallel)`}</Fact> : null}
          <Fact label="Permission">
            {detail.decision
              ? `${detail.decision.behavior}: ${describeReason(detail.decision.reason)}${detail.decision.asked ? `, asked, waited ${formatDuration(detail.permissionWaitMs)}` : ""}`
              : "not recorded"}
          </Fact>
          {detail.errorClass ? <Fact label="Error class">{detail.errorClass}</Fact> : null}
          {detail.spawnedAgentId ? <Fact label="Ran subagent">{detail.spawnedAgentId}</Fact> : null}
        </>
      );
    case "permission":
      return (
        <>
          <Fact label="Tool">{detail.toolName}</Fact>
          <Fact label="Waited">{formatDuration(detail.waitMs)}</Fact>
          <Fact label="Decision">{detail.decision ? `${detail.decision.behavior}: ${describeReason(detail.decision.reason)}` : "not recorded"}</Fact>
        </>
      );
    case "classifier":
      return (
        <>
          <Fact label="Classified">{`${detail.toolName} call ${detail.toolUseId} (auto mode)`}</Fact>
          <Fact label="Model">{detail.model}</Fact>
          <Fact label="Duration">{formatDuration(detail.durationMs)}</Fact>
          <TokensAndCost tokens={detail.tokens} costUsd={detail.costUsd} />
          {detail.failure ? <Fact label="No verdict">{detail.failure}</Fact> : null}
        </>
      );
    case "hook":
      return (
        <>
          <Fact label="Hook event">{detail.event}</Fact>
          <Fact label="Command">{detail.name}</Fact>
          <Fact label="Outcome">{detail.outcome}</Fact>
        </>
      );
    case "compaction":
      return (
        <>
          <Fact label="Trigger">{detail.trigger}</Fact>
          <Fact label="Tokens before">{detail.preTokens === null ? "not recorded" : formatTokens(detail.preTokens)}</Fact>
          <Fact label="Tokens after">{detail.postTokens === null ? "not recorded" : formatTokens(detail.postTokens)}</Fact>
          <Fact label="Messages summarised">{detail.summarizedCount === null ? "not recorded" : String(detail.summarizedCount)}</Fact>
        </>
      );
    case "tombstone":
      return (
        <>
          <Fact label="Marks">{detail.target}</Fact>
          <Fact label="Reason">{detail.reason}</Fact>
        </>
      );
    case "notice":
      return <Fact label="Level">{`${detail.level} (${detail.subtype})`}</Fact>;
    case "prompt":
    case "error":
      return null;
  }
}

function DetailBody({ detail }: { detail: TimelineDetail }) {
  switch (detail.kind) {
    case "prompt":
      return <TextBlock label="Prompt" text={detail.text} testId="timeline-detail-text" />;
    case "model":
      return (
        <>
          {detail.errorMessage ? <TextBlock label="Error" text={detail.errorMessage} testId="timeline-detail-error" /> : null}
          {detail.thinking ? <TextBlock label="Thinking" text={detail.thinking} /> : null}
          <TextBlock label="Text" text={detail.text || "(no text)"} testId="timeline-detail-text" />
          {detail.toolUseIds.length > 0 ? <TextBlock label="Tool calls" text={detail.toolUseIds.join("\n")} /> : null}
        </>
      );
    case "tool": {
      const diff = editDiff(detail.name, detail.input);
      return (
        <>
          {diff ? (
            <>
              <div className={styles.section}>Change</div>
              <p className={styles.rowSummary}>{diff.path}</p>
              {diff.note ? <p className={styles.rowSummary}>{diff.note}</p> : null}
              <pre className={styles.block} data-testid="timeline-detail-diff">
                {diff.lines.map((line, position) => (
                  <span key={position} className={line.type === "add" ? styles.diffAdd : line.type === "remove" ? styles.diffRemove : styles.diffSame}>
                    {`${line.type === "add" ? "+" : line.type === "remove" ? "-" : " "} ${line.text}`}
                  </span>
                ))}
              </pre>
            </>
          ) : null}
          <TextBlock label="Input" text={JSON.stringify(detail.input ?? null, null, 2)} testId="timeline-detail-input" />
          <TextBlock label={detail.isError ? "Output (error)" : "Output"} text={detail.output || "(no output recorded)"} testId="timeline-detail-output" />
        </>
      );
    }
    case "compaction":
      return <TextBlock label="Summary" text={detail.summary ?? "(no summary in the transcript)"} />;
    case "notice":
      return <TextBlock label="Text" text={detail.text} />;
    case "error":
      return <TextBlock label="Error" text={detail.message} testId="timeline-detail-error" />;
    case "permission":
    case "classifier":
    case "hook":
    case "tombstone":
      return null;
  }
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

function TextBlock({ label, text, testId }: { label: string; text: string; testId?: string }) {
  const [all, setAll] = useState(false);
  const cut = !all && text.length > SHOWN_CHARS;
  return (
    <>
      <div className={styles.section}>{label}</div>
      <pre className={styles.block} data-testid={testId}>
        {cut ? text.slice(0, SHOWN_CHARS) : text}
      </pre>
      {cut ? (
        <button type="button" onClick={() => setAll(true)}>
          Show all {formatCount(text.length)} characters
        </button>
      ) : null}
    </>
  );
}

/** Why a permission decision went the way it did, in words. */
export function describeReason(reason: DecisionReason): string {
  switch (reason.type) {
    case "rule":
      return `rule ${reason.rule} (${reason.source})`;
    case "hook":
      return `hook ${reason.hookName}${reason.reason ? `: ${reason.reason}` : ""}`;
    case "mode":
      return `mode ${reason.mode}${reason.reason ? `: ${reason.reason}` : ""}`;
    case "user":
      return reason.scope === "reject" ? `you refused${reason.feedback ? `: ${reason.feedback}` : ""}` : `you allowed it (${reason.scope})`;
    case "classifier":
      return `classifier ${reason.classifier}: ${reason.reason}`;
    case "sandbox":
    case "workspace":
    case "tool":
    case "headless":
    case "default":
      return `${reason.type}: ${reason.reason}`;
  }
}
