import { createHash } from "node:crypto";

/** Which worker host holds a workspace: recorded once, then reused by every node and every start. */
export type WorkerAssignment = {
  /** The workspace as API nodes name it (`cairn serve --workspace <name>`). */
  workspace: string;
  /** The `cairn worker --listen` host that holds its files. */
  workerUrl: string;
  /** Its directory's name under that worker's `--root`. */
  workerWorkspace: string;
  /** ISO time of the assignment. */
  assignedAt: string;
  /** The node that made it. */
  assignedByNode: string;
};

export type NewWorkerAssignment = Omit<WorkerAssignment, "assignedAt">;

/** Where assignments are recorded: PostgreSQL (`cairn_workspace_workers`) when configured, else this process's memory. */
export interface WorkerAssignmentStore {
  /** Names the store in the start banner. */
  readonly location: string;
  get(workspace: string): Promise<WorkerAssignment | undefined>;
  /** Records `assignment` unless the workspace has one already; returns the assignment that holds (another node may have been first). */
  claim(assignment: NewWorkerAssignment): Promise<WorkerAssignment>;
  /** How many workspaces each worker holds, by URL. */
  load(): Promise<Map<string, number>>;
}

export function createMemoryWorkerAssignments(now: () => Date = () => new Date()): WorkerAssignmentStore {
  const assignments = new Map<string, WorkerAssignment>();
  return {
    location: "this node's memory (no --database-url)",
    get: async (workspace) => assignments.get(workspace),
    async claim(assignment) {
      const existing = assignments.get(assignment.workspace);
      if (existing) return existing;
      const recorded = { ...assignment, assignedAt: now().toISOString() };
      assignments.set(assignment.workspace, recorded);
      return recorded;
    },
    async load() {
      const counts = new Map<string, number>();
      for (const { workerUrl } of assignments.values()) counts.set(workerUrl, (counts.get(workerUrl) ?? 0) + 1);
      return counts;
    },
  };
}

/**
 * The workers to try for a new workspace, best first: the least loaded (fewest recorded workspaces), ties
 * broken by rendezvous hashing of the workspace's name, so every node and every restart ranks them the same,
 * and adding a worker moves no existing choice but those it now wins.
 */
export function rankWorkers(workspace: string, workerUrls: readonly string[], load: ReadonlyMap<string, number>): string[] {
  const score = (url: string) => createHash("sha256").update(`${url}\n${workspace}`).digest("hex");
  return [...workerUrls].sort((left, right) => {
    const byLoad = (load.get(left) ?? 0) - (load.get(right) ?? 0);
    if (byLoad !== 0) return byLoad;
    return score(right).localeCompare(score(left));
  });
}
