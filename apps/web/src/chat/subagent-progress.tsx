"use client";

import type { SubagentView } from "./chat-types";
import { formatDuration } from "./describe";
import styles from "./subagent-progress.module.css";

const TEXT_PREVIEW = 2_000;

/** An Agent call's subagent: its type and task, each tool call it makes as it happens, and its latest text. All text, never HTML. */
export function SubagentProgress({ subagent }: { subagent: SubagentView }) {
  const running = subagent.steps.filter((step) => step.status === "running" || step.status === "pending").length;
  return (
    <div className={styles.subagent} data-testid="subagent" data-agent-id={subagent.agentId} data-done={subagent.done}>
      <div className={styles.header}>
        <span className={styles.type}>{subagent.agentType}</span> · {subagent.description}
        <span className="tool-meta">
          {" "}
          · {subagent.steps.length} tool {subagent.steps.length === 1 ? "call" : "calls"}
          {subagent.done
            ? ` · ${subagent.reason === "completed" || subagent.reason === undefined ? "finished" : subagent.reason}`
            : running > 0
              ? ` · ${running} running`
              : " · thinking"}
        </span>
      </div>
      {subagent.steps.length > 0 ? (
        <ol className={styles.steps}>
          {subagent.steps.map((step) => (
            <li key={step.toolUseId} className={styles.step} data-testid="subagent-step" data-tool-name={step.name} data-status={step.status}>
              <span className={`status-dot ${step.status}`} aria-hidden />
              <span className="tool-name">{step.name}</span> <span className={`tool-summary ${styles.summary}`}>{step.summary}</span>
              {step.durationMs !== undefined ? <span className="tool-meta"> · {formatDuration(step.durationMs)}</span> : null}
            </li>
          ))}
        </ol>
      ) : null}
      {subagent.text ? (
        <div className="tool-section" data-testid="subagent-text">
          <div className="tool-section-label">{subagent.done ? "Final answer" : "Latest message"}</div>
          <pre>{subagent.text.length > TEXT_PREVIEW ? `${subagent.text.slice(0, TEXT_PREVIEW)}…` : subagent.text}</pre>
        </div>
      ) : null}
    </div>
  );
}
