import { WorkspaceError } from "@cairn/core";
import type { ExecOptions, OutputChunk, WatchEvent } from "@cairn/core";
import { remoteGit } from "../git/git-protocol.ts";
import type { WorkerProcessWorkspace } from "./worker-client.ts";
import type { CallHandlers } from "./pending-calls.ts";
import { methodSchemas, type MethodName, type MethodParams, type MethodResult } from "./protocol.ts";
import { protocolTerminals } from "./remote-terminal.ts";

/** One live link to a worker (a child process, or a socket to a remote worker) that carries protocol calls. */
export type ProtocolConnection = {
  readonly alive: boolean;
  readonly pid: number | undefined;
  call<M extends MethodName>(method: M, params: MethodParams<M>, handlers: CallHandlers): Promise<unknown>;
  close(): Promise<void>;
};

/**
 * A Workspace whose every call goes over the worker protocol through the connection `open` makes.
 * When that connection dies, calls in flight fail (with `worker_unavailable`) and the next call opens a new one.
 */
export function protocolWorkspace(root: string, open: () => ProtocolConnection): WorkerProcessWorkspace {
  let connection: ProtocolConnection | undefined;
  let disposed = false;
  const watches = new Set<{ listener: (event: WatchEvent) => void; signal: AbortSignal }>();

  const connect = (): ProtocolConnection => {
    if (connection?.alive === true) return connection;
    const fresh = open();
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
  const startWatch = (target: ProtocolConnection, watch: { listener: (event: WatchEvent) => void; signal: AbortSignal }) => {
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
    terminals: protocolTerminals(() => {
      if (disposed) throw new WorkspaceError("worker_unavailable", `The workspace ${root} was disposed`);
      return connect();
    }),
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
