import type { ToolUseContext } from "../tools/tool.ts";

/** The key under `ToolUseContext.services` where a session's `BackgroundAgents` lives. */
export const BACKGROUND_AGENTS_SERVICE = "backgroundAgents";

export type BackgroundAgentOutcome = { status: "completed" | "failed" | "killed"; text: string };

export type TaskNotification = { agentId: string; description: string } & BackgroundAgentOutcome;

type Entry = { agentId: string; description: string; outcome: BackgroundAgentOutcome | null };

/**
 * The subagents a session started with `run_in_background: true`. Each finished agent leaves a
 * notification that the main loop delivers to the model as a `<task-notification>` message, as
 * Claude Code 2.x does; `cairn -p` waits for the agents it started before it ends.
 */
export class BackgroundAgents {
  private readonly entries = new Map<string, Entry>();
  private readonly pending: TaskNotification[] = [];
  private readonly listeners = new Set<() => void>();

  launch(agentId: string, description: string, done: Promise<BackgroundAgentOutcome>): void {
    const entry: Entry = { agentId, description, outcome: null };
    this.entries.set(agentId, entry);
    void done
      .catch((error: unknown): BackgroundAgentOutcome => ({ status: "failed", text: error instanceof Error ? error.message : String(error) }))
      .then((outcome) => {
        entry.outcome = outcome;
        this.pending.push({ agentId, description, ...outcome });
        for (const listener of [...this.listeners]) listener();
      });
  }

  /** Agents still working. */
  running(): Array<{ agentId: string; description: string }> {
    return [...this.entries.values()].filter((entry) => entry.outcome === null).map(({ agentId, description }) => ({ agentId, description }));
  }

  hasPending(): boolean {
    return this.pending.length > 0;
  }

  /** The notifications not yet delivered, oldest first; each is handed out once. */
  takeNotifications(): TaskNotification[] {
    return this.pending.splice(0);
  }

  /** Called whenever an agent finishes; returns the unsubscribe function. */
  onFinished(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once a notification is waiting (at once if one is), or when the signal aborts. */
  waitForNotification(signal: AbortSignal): Promise<void> {
    if (this.pending.length > 0 || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        unsubscribe();
        signal.removeEventListener("abort", done);
        resolve();
      };
      const unsubscribe = this.onFinished(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }
}

export function backgroundAgentsOf(context: Pick<ToolUseContext, "services">): BackgroundAgents | undefined {
  const candidate = context.services[BACKGROUND_AGENTS_SERVICE];
  return candidate instanceof BackgroundAgents ? candidate : undefined;
}

/** The message the model gets when a background agent finishes (Claude Code's `<task-notification>`). */
export function taskNotificationText(notification: TaskNotification): string {
  const verb = notification.status === "completed" ? "completed" : notification.status === "killed" ? "was stopped" : "failed";
  return [
    "<task-notification>",
    `<task-id>${notification.agentId}</task-id>`,
    `<status>${notification.status}</status>`,
    `<summary>Agent "${notification.description}" ${verb}</summary>`,
    `<result>${notification.text || "(The agent finished without a final message.)"}</result>`,
    "</task-notification>",
  ].join("\n");
}
