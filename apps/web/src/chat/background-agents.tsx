import type { BackgroundAgentView } from "./chat-types";
import styles from "./background-agents.module.css";

const statusLabel: Record<BackgroundAgentView["status"], string> = { running: "running", completed: "done", failed: "failed", killed: "stopped" };
const statusDot: Record<BackgroundAgentView["status"], string> = { running: "running", completed: "completed", failed: "error", killed: "error" };

function duration(agent: BackgroundAgentView): string | null {
  if (agent.endedAt === null) return null;
  const seconds = Math.max(0, Math.round((agent.endedAt - agent.startedAt) / 1000));
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}

/** Agents the model started with `run_in_background`: which still run, and how each that ended did, with its answer. */
export function BackgroundAgents({ agents }: { agents: readonly BackgroundAgentView[] }) {
  if (agents.length === 0) return null;
  const running = agents.filter((agent) => agent.status === "running").length;
  return (
    <details className={styles.panel} data-testid="background-agents" data-running={running} open>
      <summary>
        Background agents: {running} running, {agents.length - running} ended
      </summary>
      <ul className={styles.list}>
        {agents.map((agent) => {
          const took = duration(agent);
          return (
            <li key={agent.agentId} className={styles.agent} data-testid="background-agent" data-agent-id={agent.agentId} data-status={agent.status}>
              <span className={`status-dot ${statusDot[agent.status]}`} aria-hidden />
              <span className={styles.description} title={agent.agentId}>
                {agent.description}
              </span>
              <span className={styles.meta} data-testid="background-agent-status">
                {statusLabel[agent.status]}
                {took ? ` · ${took}` : ""}
              </span>
              {agent.resultPreview ? (
                <p className={styles.result} data-testid="background-agent-result">
                  {agent.resultPreview}
                </p>
              ) : null}
            </li>
          );
        })}
      </ul>
    </details>
  );
}
