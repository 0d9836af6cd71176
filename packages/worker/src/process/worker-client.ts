import { realpath } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { WorkspaceError } from "@cairn/core";
import type { ExecOptions, OutputChunk, WatchEvent } from "@cairn/core";
import { readWorkerEnv, type WorkerEnv } from "../env.ts";
import { remoteGit } from "../git/git-protocol.ts";
import type { WorkerWorkspace } from "../local-workspace.ts";
import { localWorkspaceOptionsSchema, type LocalWorkspaceOptions } from "../settings.ts";
import type { MethodName, MethodParams, MethodResult } from "./protocol.ts";
import { methodSchemas } from "./protocol.ts";
import { WorkerConnection, type CallHandlers } from "./worker-connection.ts";

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
  let connection: WorkerConnection | undefined;
  let disposed = false;
  const watches = new Set<{ listener: (event: WatchEvent) => void; signal: AbortSignal }>();

  const connect = (): WorkerConnection => {
    if (connection?.alive === true) return connection;
    const fresh = new WorkerConnection({
      script: workerScript,
      cwd: root,
      env: childEnv,
      options: settings,
      temporaryRoot: settings.temporaryDirectory ?? workerEnv.tmpDir,
    });
    connection = fresh;
    // A new child knows nothing of the old one's watchers: register them again.
    for (const watch of watches) startWatch(fresh, watch);
    return fresh;
  };
  const call = async <M extends MethodName>(method: M, params: MethodParams<M>, handlers: CallHandlers = {}): Promise<MethodResult<M>> => {
    if (disposed) throw new WorkspaceError("worker_unavailable", `The workspace ${root} was disposed`);
    const value = await connect().call(method, params, handlers);
    return methodSchemas[method].result.parse(value) as MethodResult<M>;
  };
  const startWatch = (target: WorkerConnection, watch: { listener: (event: WatchEvent) => void; signal: AbortSignal }) => {
    if (watch.signal.aborted) return;
    target.call("watch", {}, { signal: watch.signal, abortWaitsForReply: true, onEvent: watch.listener }).catch(() => undefined);
  };
  const signalOnly = (signal: AbortSignal | undefined): CallHandlers => (signal === undefined ? {} : { signal });

  connect();
  return {
    root,
    get pid() {
      return connection?.alive === true ? connection.pid : undefined;
    },
    resolve: (path) => call("resolve", { path }),
    stat: (path) => call("stat", { path }),
    async readFile(path, readOptions) {
      const base64 = await call("readFile", { path }, signalOnly(readOptions?.signal));
      return new Uint8Array(Buffer.from(base64, "base64"));
    },
    writeFile: (path, data, writeOptions) =>
      call(
        "writeFile",
        {
          path,
          data:
            typeof data === "string"
              ? { encoding: "utf8", value: data }
              : { encoding: "base64", value: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64") },
        },
        signalOnly(writeOptions?.signal),
      ),
    list: (path) => call("list", { path }),
    mkdir: async (path) => void (await call("mkdir", { path })),
    remove: async (path) => void (await call("remove", { path })),
    rename: async (from, to) => void (await call("rename", { from, to })),
    glob: (pattern, globOptions) =>
      call(
        "glob",
        { pattern, limit: globOptions.limit, ...(globOptions.path === undefined ? {} : { path: globOptions.path }) },
        signalOnly(globOptions.signal),
      ),
    grep: (query, grepOptions) => call("grep", { query }, signalOnly(grepOptions?.signal)),
    exec(command: string, execOptions: ExecOptions) {
      const onOutput = execOptions.onOutput;
      return call(
        "exec",
        {
          command,
          shellId: execOptions.shellId,
          timeoutMs: execOptions.timeoutMs,
          streamOutput: onOutput !== undefined,
          ...(execOptions.maxOutputChars === undefined ? {} : { maxOutputChars: execOptions.maxOutputChars }),
        },
        // An aborted command still answers, with `interrupted`, once its process group is dead.
        { signal: execOptions.signal, abortWaitsForReply: true, ...(onOutput === undefined ? {} : { onOutput: (chunk: OutputChunk) => onOutput(chunk) }) },
      );
    },
    startBackground: (command, backgroundOptions) => call("startBackground", { command, shellId: backgroundOptions.shellId }),
    readBackground: (id) => call("readBackground", { id }),
    killBackground: (id) => call("killBackground", { id }),
    git: remoteGit((request) => call("git", { request })),
    watch(listener, signal) {
      if (signal.aborted || disposed) return;
      const watch = { listener, signal };
      watches.add(watch);
      signal.addEventListener("abort", () => watches.delete(watch), { once: true });
      startWatch(connect(), watch);
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      watches.clear();
      const current = connection;
      connection = undefined;
      if (current?.alive === true) {
        await current.call("dispose", {}, {}).catch(() => undefined);
        await current.close();
      }
    },
  };
}
