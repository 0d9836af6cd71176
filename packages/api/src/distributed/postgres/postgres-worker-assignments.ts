import type { WorkerAssignment, WorkerAssignmentStore } from "../../workers/worker-assignments.ts";
import type { Database } from "./database.ts";

type AssignmentRow = { workspace_root: string; worker_url: string; worker_workspace: string; assigned_at: string; assigned_by_node: string };

const toAssignment = (row: AssignmentRow): WorkerAssignment => ({
  workspace: row.workspace_root,
  workerUrl: row.worker_url,
  workerWorkspace: row.worker_workspace,
  assignedAt: row.assigned_at,
  assignedByNode: row.assigned_by_node,
});

/**
 * Workspace-to-worker assignments in `cairn_workspace_workers`, shared by every node: the first node to open a
 * workspace records its worker, the others (and later starts) reuse it. Two nodes racing agree on the first insert.
 */
export function createPostgresWorkerAssignments(sql: Database): WorkerAssignmentStore {
  const select = (workspace: string) => sql<AssignmentRow[]>`
    select workspace_root, worker_url, worker_workspace, to_char(assigned_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as assigned_at, assigned_by_node
    from cairn_workspace_workers where workspace_root = ${workspace}`;
  return {
    location: "PostgreSQL (cairn_workspace_workers)",
    async get(workspace) {
      const [row] = await select(workspace);
      return row ? toAssignment(row) : undefined;
    },
    async claim(assignment) {
      await sql`
        insert into cairn_workspace_workers (workspace_root, worker_url, worker_workspace, assigned_by_node)
        values (${assignment.workspace}, ${assignment.workerUrl}, ${assignment.workerWorkspace}, ${assignment.assignedByNode})
        on conflict (workspace_root) do nothing`;
      const [row] = await select(assignment.workspace);
      if (!row) throw new Error(`The assignment of workspace "${assignment.workspace}" vanished right after it was recorded`);
      return toAssignment(row);
    },
    async load() {
      const rows = await sql<{ worker_url: string; count: number }[]>`
        select worker_url, count(*)::int as count from cairn_workspace_workers group by worker_url`;
      return new Map(rows.map((row) => [row.worker_url, row.count]));
    },
  };
}
