import type { ToolUseContext } from "../tools/tool.ts";

/** The key under `ToolUseContext.services` where a session's `BackgroundAgents` lives. */
export const BACKGROUND_AGENTS_SERVICE = "backgroundAgents";

export type BackgroundAgentOutcome = { status: "completed" | "failed" | "killed"; text: string };

export type TaskNotification = { agentId: string; description: string } & BackgroundAgentOutcome;

type Entry = { agentId: string; description: string; startedAt: number; endedAt: number | null; outcome: BackgroundAgentOutcome | null };

/** A background agent as the IDE shows it: running, or how it ended and with what. */
export type BackgroundAgentView = {
  agentId: string;
  description: string;
  status: "running" | BackgroundAgentOutcome["status"];
  /** Epoch milliseconds. */
  startedAt: number;
  endedAt: number | null;
  /** The start of its final message (or error) once it has ended. */
  resultPreview: string | null;
};

/** The views keep this many characters of an agent's result. */
const RESULT_PREVIEW_CHARS = 300;
/** Ended agents older than the newest this many are left out of the views. */
const MAX_VIEWS = 20;

/**
 * The subagents a session started with `run_in_background: true`. Each finished agent leaves a
 * notification that the main loop delivers to the model as a `<task-notification>` message, as
 * Claude Code 2.x does; `cairn -p` waits for the agents it started before it ends.
 */
export class BackgroundAgents {
  private readonly entries = new Map<string, Entry>();
  private readonly pending: TaskNotification[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly changeListeners = new Set<() => void>();
  private readonly now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  launch(agentId: string, description: string, done: Promise<BackgroundAgentOutcome>): void {
    const entry: Entry = { agentId, description, startedAt: this.now(), endedAt: null, outcome: null };
    this.entries.set(agentId, entry);
    this.changed();
    void done
      .catch((error: unknown): BackgroundAgentOutcome => ({ status: "failed", text: error instanceof Error ? error.message : String(error) }))
      .then((outcome) => {
        entry.outcome = outcome;
        entry.endedAt = this.now();
        this.pending.push({ agentId, description, ...outcome });
        this.changed();
        for (const listener of [...this.listeners]) listener();
      });
  }

  /** Every agent still running and the latest ones that ended, in launch order. */
  views(): BackgroundAgentView[] {
    const all = [...this.entries.values()];
    const ended = all.filter((entry) => entry.outcome !== null);
    const dropped = new Set(ended.slice(0, Math.max(0, ended.length - MAX_VIEWS)));
    return all
      .filter((entry) => !dropped.has(entry))
      .map((entry) => ({
        agentId: entry.agentId,
        description: entry.description,
        status: entry.outcome?.status ?? "running",
        startedAt: entry.startedAt,
        endedAt: entry.endedAt,
        resultPreview: entry.outcome ? previewOf(entry.outcome.text) : null,
      }));
  }

  /** Called when an agent starts or ends (before the finish listeners); returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private changed(): void {
    for (const listener of [...this.changeListeners]) listener();
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

function previewOf(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > RESULT_PREVIEW_CHARS ? `${trimmed.slice(0, RESULT_PREVIEW_CHARS - 1)}…` : trimmed;
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
