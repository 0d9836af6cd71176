import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { rm } from "node:fs/promises";
import { createInterface } from "node:readline";
import { WorkspaceError } from "@cairn/core/workspace";
import type { LocalWorkspaceOptions } from "../settings.ts";
import { type CallHandlers, PendingCalls } from "./pending-calls.ts";
import { makePrivateDirectorySync } from "./private-directories.ts";
import { childMessageSchema, decodeLine, encodeLine, type MethodName, type MethodParams, type ParentMessage } from "./protocol.ts";

export type ConnectionOptions = { script: string; cwd: string; env: Record<string, string>; options: LocalWorkspaceOptions; temporaryRoot: string };

/** One child process and the calls in flight to it. Once the child is gone, the connection is dead for good. */
export class WorkerConnection {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly calls = new PendingCalls();
  private readonly ready: Promise<void>;
  private readonly closed: Promise<void>;
  private exited = false;
  private exitReason = "";
  /** Whether a call was ever sent: a child nobody used (`cairn -p` without a tool call) is killed at close, not awaited. */
  private used = false;

  constructor(options: ConnectionOptions) {
    // The child's private directories go in one of ours, so they are removed even when it is killed (and when this
    // process is killed too, by the next one to make such a directory: see private-directories.ts).
    const temporaryDirectory = makePrivateDirectorySync(options.temporaryRoot, "cairn-worker");
    // Node runs the tsx loader in bin/worker.js; cwd is the workspace root (the sandbox scans it for files to protect).
    this.child = spawn(process.execPath, [options.script], { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdin.on("error", () => undefined);
    this.child.stderr.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    let markReady: () => void = () => undefined;
    let failReady: (error: unknown) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    this.ready.catch(() => undefined);
    const lines = createInterface({ input: this.child.stdout, crlfDelay: Infinity });
    lines.on("line", (line) => {
      const message = decodeLine(childMessageSchema, line);
      if (message === undefined) {
        process.stderr.write(`cairn worker: ignoring an invalid message from the worker: ${line.slice(0, 200)}\n`);
        return;
      }
      switch (message.type) {
        case "ready":
          markReady();
          return;
        case "init_failed":
          failReady(new WorkspaceError(message.error.code, message.error.message, message.error.path === undefined ? {} : { path: message.error.path }));
          this.child.kill("SIGKILL");
          return;
        case "output":
        case "event":
        case "terminal":
        case "result":
        case "error":
          this.calls.answer(message);
          return;
      }
    });
    this.closed = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.exited = true;
        this.exitReason = signal === null ? `exit status ${code}` : `signal ${signal}`;
        const error = () =>
          new WorkspaceError("worker_unavailable", `The workspace worker process stopped (${this.exitReason}); the next call starts a new one`);
        failReady(error());
        this.calls.failAll(
          (method) =>
            new WorkspaceError(
              "worker_unavailable",
              `The workspace worker process stopped (${this.exitReason}) during ${method}; the next call starts a new one`,
            ),
        );
        void rm(temporaryDirectory, { recursive: true, force: true })
          .catch(() => undefined)
          .finally(resolve);
      });
    });
    this.child.once("error", (error) => {
      failReady(new WorkspaceError("worker_unavailable", `The workspace worker process could not start: ${error.message}`, { cause: error }));
    });
    this.send({ type: "init", options: { ...options.options, temporaryDirectory } });
  }

  get alive(): boolean {
    return !this.exited;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  async call<M extends MethodName>(method: M, params: MethodParams<M>, handlers: CallHandlers): Promise<unknown> {
    // Nothing was asked of an unused child, so there is nothing to dispose of (close kills it and removes its directory).
    if (method === "dispose" && !this.used) return null;
    this.used = true;
    const { signal } = handlers;
    signal?.throwIfAborted();
    await this.ready;
    signal?.throwIfAborted();
    if (this.exited)
      throw new WorkspaceError("worker_unavailable", `The workspace worker process stopped (${this.exitReason}); the next call starts a new one`);
    return this.calls.start(method, params, handlers, (message) => this.send(message));
  }

  /** Ends the child: closes its stdin (it disposes and exits), and kills it if it lingers; an unused one at once. */
  async close(): Promise<void> {
    if (this.exited) return;
    if (!this.used) {
      this.child.kill("SIGKILL");
      await this.closed;
      return;
    }
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
    await this.closed;
    clearTimeout(timer);
  }

  private send(message: ParentMessage): void {
    if (this.exited) return;
    this.child.stdin.write(encodeLine(message));
  }
}
