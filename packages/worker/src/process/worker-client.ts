import { realpath } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { WorkspaceError } from "@cairn/core";
import { readWorkerEnv, type WorkerEnv } from "../env.ts";
import type { WorkerWorkspace } from "../local-workspace.ts";
import { localWorkspaceOptionsSchema, type LocalWorkspaceOptions } from "../settings.ts";
import { protocolWorkspace } from "./protocol-workspace.ts";
import { WorkerConnection } from "./worker-connection.ts";

export type WorkerProcessOptions = LocalWorkspaceOptions & {
  /** The worker script; defaults to this package's bin/worker.js. */
  workerScript?: string;
};

/** A Workspace served by a child process; `pid` is the current child's, if one is running. */
export type WorkerProcessWorkspace = WorkerWorkspace & { readonly pid: number | undefined };

const defaultWorkerScript = fileURLToPath(new URL("../../bin/worker.js", import.meta.url));

/**
 * A Workspace whose every call goes to a child process over the JSON-lines protocol. If the child
 * dies, calls in flight fail with `worker_unavailable` and the next call starts a fresh child.
 */
export async function createWorkerProcessWorkspace(options: WorkerProcessOptions, workerEnv: WorkerEnv = readWorkerEnv()): Promise<WorkerProcessWorkspace> {
  const { workerScript = defaultWorkerScript, ...rest } = options;
  const settings = localWorkspaceOptionsSchema.parse(rest);
  const root = await realpath(settings.root).catch((error: unknown) => {
    throw new WorkspaceError("not_found", `Workspace directory ${settings.root} does not exist`, { path: settings.root, cause: error });
  });
  // The child gets what it needs and nothing else of the server's environment (no API keys, no tokens).
  const childEnv: Record<string, string> = {
    PATH: workerEnv.path,
    HOME: workerEnv.home,
    LANG: workerEnv.lang,
    TERM: workerEnv.term,
    TMPDIR: workerEnv.tmpDir,
    CAIRN_HOME: settings.cairnHome ?? workerEnv.cairnHome,
    // For `git push` only: the worker's git runner hands it to push and to nothing else.
    ...(workerEnv.sshAuthSock ? { SSH_AUTH_SOCK: workerEnv.sshAuthSock } : {}),
  };
  return protocolWorkspace(
    root,
    () =>
      new WorkerConnection({
        script: workerScript,
        cwd: root,
        env: childEnv,
        options: settings,
        temporaryRoot: settings.temporaryDirectory ?? workerEnv.tmpDir,
      }),
  );
}
