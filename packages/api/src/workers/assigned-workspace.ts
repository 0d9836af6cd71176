import { rankWorkers, type WorkerAssignment, type WorkerAssignmentStore } from "./worker-assignments.ts";

export class WorkerAssignmentError extends Error {
  override readonly name = "WorkerAssignmentError";
  readonly code = "worker_unavailable";
}

export type AssignedWorkspaceOptions<W extends { dispose(): Promise<void> }> = {
  /** The workspace's name (`--workspace`), also its directory's name on the worker. */
  workspace: string;
  /** `--worker-url` values, in the order given. */
  workerUrls: readonly string[];
  nodeId: string;
  assignments: WorkerAssignmentStore;
  /** Connects to one worker and opens the workspace there; rejects with a readable reason when it cannot. */
  open(workerUrl: string, workerWorkspace: string): Promise<W>;
};

/**
 * Opens a workspace on the worker it is assigned to. A recorded assignment is reused as it is (the files live
 * there); without one, the workers are tried best first (see `rankWorkers`) and the first that answers is
 * recorded. When another node recorded a different worker meanwhile, this node follows that record.
 */
export async function openAssignedWorkspace<W extends { dispose(): Promise<void> }>(
  options: AssignedWorkspaceOptions<W>,
): Promise<{ workspace: W; assignment: WorkerAssignment }> {
  const recorded = await options.assignments.get(options.workspace);
  if (recorded) return { workspace: await openRecorded(options, recorded), assignment: recorded };

  const failures: string[] = [];
  for (const workerUrl of rankWorkers(options.workspace, options.workerUrls, await options.assignments.load())) {
    let workspace: W;
    try {
      workspace = await options.open(workerUrl, options.workspace);
    } catch (error) {
      failures.push((error as Error).message);
      continue;
    }
    let assignment: WorkerAssignment;
    try {
      assignment = await options.assignments.claim({
        workspace: options.workspace,
        workerUrl,
        workerWorkspace: options.workspace,
        assignedByNode: options.nodeId,
      });
    } catch (error) {
      await workspace.dispose().catch(() => undefined);
      throw error;
    }
    if (assignment.workerUrl === workerUrl && assignment.workerWorkspace === options.workspace) return { workspace, assignment };
    await workspace.dispose().catch(() => undefined);
    return { workspace: await openRecorded(options, assignment), assignment };
  }
  throw new WorkerAssignmentError(`No worker could open the workspace "${options.workspace}":\n  ${failures.join("\n  ")}`);
}

async function openRecorded<W extends { dispose(): Promise<void> }>(options: AssignedWorkspaceOptions<W>, assignment: WorkerAssignment): Promise<W> {
  const where = `the workspace "${options.workspace}" is assigned to the worker ${assignment.workerUrl} (recorded by node ${assignment.assignedByNode} at ${assignment.assignedAt})`;
  if (!options.workerUrls.includes(assignment.workerUrl)) {
    throw new WorkerAssignmentError(
      `${where}, which is not among the configured workers (${options.workerUrls.join(", ")}). Add it with --worker-url; to move the workspace, move its directory to another worker and delete its row in cairn_workspace_workers.`,
    );
  }
  try {
    return await options.open(assignment.workerUrl, assignment.workerWorkspace);
  } catch (error) {
    throw new WorkerAssignmentError(`${where}, which cannot be reached: ${(error as Error).message}`, { cause: error });
  }
}
