import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createRemoteWorkspace, remoteWorkspaceNameSchema, type RemoteWorkspaceOptions, type WorkerWorkspace } from "@cairn/worker";
import type { LocalSettingsStoreFactory } from "../runtime/local-settings.ts";
import { openAssignedWorkspace } from "./assigned-workspace.ts";
import { createMemoryWorkerAssignments, type WorkerAssignment, type WorkerAssignmentStore } from "./worker-assignments.ts";

export class WorkerModeError extends Error {
  override readonly name = "WorkerModeError";
  readonly code = "invalid_worker_config";
}

/** What the runtime needs to open its workspace on a worker: the sandbox and environment it sends at `init`. */
export type RemoteWorkspaceInit = Pick<RemoteWorkspaceOptions, "sandbox" | "env">;

export type WorkerModeOptions = {
  /** `--workspace`: the workspace's name (its directory under the worker's `--root`). */
  workspace: string;
  workerUrls: readonly string[];
  /** CAIRN_WORKER_TOKEN, as the workers were started with. */
  token: string | undefined;
  nodeId: string;
  cairnHome: string;
  /** PostgreSQL's assignments when configured; default: this process's memory. */
  assignments: WorkerAssignmentStore | undefined;
  /** PostgreSQL's IDE-written settings when configured; default: a file on this node. */
  localSettings: LocalSettingsStoreFactory | undefined;
};

/** The runtime options of a node whose workspace lives on a worker host, and which worker that turned out to be. */
export type WorkerMode = {
  /**
   * `workspaceRoot` is this node's own directory for the workspace (`$CAIRN_HOME/worker-workspaces/<name>`: the
   * settings layer the IDE writes when there is no PostgreSQL); the tools, files, git and search go to the worker.
   */
  runtimeOptions: {
    workspaceRoot: string;
    remoteWorkspace: (init: RemoteWorkspaceInit) => Promise<WorkerWorkspace>;
    localSettings?: LocalSettingsStoreFactory;
  };
  /** Where the assignment is recorded (for the start banner). */
  assignmentsLocation: string;
  /** The worker holding the workspace, once the runtime opened it. */
  assignment(): WorkerAssignment | undefined;
};

/** Checks the worker settings and prepares the runtime options; nothing is dialled until the runtime opens the workspace. */
export async function prepareWorkerMode(options: WorkerModeOptions): Promise<WorkerMode> {
  if (options.token === undefined || options.token === "") {
    throw new WorkerModeError("--worker-url needs CAIRN_WORKER_TOKEN: the token the workers were started with");
  }
  const name = remoteWorkspaceNameSchema.safeParse(options.workspace);
  if (!name.success) {
    throw new WorkerModeError(
      `with --worker-url, --workspace names the workspace on the worker, not a folder here ("${options.workspace.slice(0, 100)}"): ${name.error.issues[0]?.message ?? "invalid"}`,
    );
  }
  const token = options.token;
  const workspace = name.data;
  const assignments = options.assignments ?? createMemoryWorkerAssignments();
  const workspaceRoot = join(options.cairnHome, "worker-workspaces", workspace);
  await mkdir(workspaceRoot, { recursive: true });
  const sharedSettings = options.localSettings;
  let assignment: WorkerAssignment | undefined;
  return {
    runtimeOptions: {
      workspaceRoot,
      async remoteWorkspace(init) {
        const opened = await openAssignedWorkspace({
          workspace,
          workerUrls: options.workerUrls,
          nodeId: options.nodeId,
          assignments,
          open: (url, workerWorkspace) => createRemoteWorkspace({ url, token, workspace: workerWorkspace, ...init }),
        });
        assignment = opened.assignment;
        return opened.workspace;
      },
      // Every node keys the shared settings by the workspace's name, not by its own directory for it.
      ...(sharedSettings ? { localSettings: () => sharedSettings(`worker:${workspace}`) } : {}),
    },
    assignmentsLocation: assignments.location,
    assignment: () => assignment,
  };
}
