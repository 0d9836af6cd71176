import { type OutputChunk, type WatchEvent, WorkspaceError } from "@cairn/core/workspace";
import { abortError } from "../errors.ts";
import { GitError } from "../git/git-runner.ts";
import type { ChildMessage, MethodName, MethodParams, ParentMessage, WireError } from "./protocol.ts";
import type { TerminalEvent } from "./protocol-terminal.ts";

export type CallHandlers = {
  signal?: AbortSignal;
  /** On abort, tell the worker and wait for its answer instead of rejecting at once. */
  abortWaitsForReply?: boolean;
  onOutput?: (chunk: OutputChunk) => void;
  onEvent?: (event: WatchEvent) => void;
  onTerminal?: (event: TerminalEvent) => void;
};

type Pending = { method: MethodName; resolve: (value: unknown) => void; reject: (error: unknown) => void; handlers: CallHandlers; cleanup: () => void };

/** An error as the worker sent it, rebuilt on this side: a GitError keeps its code, anything else is a WorkspaceError. */
export const wireError = ({ code, message, path, gitCode }: WireError): Error =>
  gitCode ? new GitError(gitCode, message) : new WorkspaceError(code, message, path === undefined ? {} : { path });

/** The worker's answers to one call: its output, watch and terminal events as they come, then one result or error. */
export type CallReply = Extract<ChildMessage, { type: "result" | "error" | "output" | "event" | "terminal" }>;

/**
 * The calls in flight on one worker connection (a child process or a WebSocket): each gets an id,
 * the worker's replies are routed to it by that id, an abort is passed on to the worker, and when
 * the connection dies every call still waiting fails.
 */
export class PendingCalls {
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;

  /** Sends the call with `send` and settles when the worker answers (or at once on abort, unless it waits for the reply). */
  start<M extends MethodName>(method: M, params: MethodParams<M>, handlers: CallHandlers, send: (message: ParentMessage) => void): Promise<unknown> {
    const { signal } = handlers;
    const id = this.#nextId;
    this.#nextId += 1;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        send({ type: "abort", id });
        if (handlers.abortWaitsForReply === true) return;
        this.#settle(id, (pending) => pending.reject(abortError(signal ?? new AbortController().signal)));
      };
      const cleanup = () => signal?.removeEventListener("abort", onAbort);
      this.#pending.set(id, { method, resolve, reject, handlers, cleanup });
      signal?.addEventListener("abort", onAbort, { once: true });
      send({ type: "call", id, method, params });
    });
  }

  /** Routes one reply to its call; a reply to a call no longer waiting is dropped. */
  answer(reply: CallReply): void {
    switch (reply.type) {
      case "output":
        this.#pending.get(reply.id)?.handlers.onOutput?.(reply.chunk);
        return;
      case "event":
        this.#pending.get(reply.id)?.handlers.onEvent?.(reply.event);
        return;
      case "terminal":
        this.#pending.get(reply.id)?.handlers.onTerminal?.(reply.event);
        return;
      case "result":
        this.#settle(reply.id, (pending) => pending.resolve(reply.value));
        return;
      case "error":
        this.#settle(reply.id, (pending) => pending.reject(wireError(reply.error)));
        return;
    }
  }

  /** The connection is gone: every call still waiting fails with the error made for its method. */
  failAll(errorFor: (method: MethodName) => Error): void {
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.cleanup();
      pending.reject(errorFor(pending.method));
    }
  }

  #settle(id: number, action: (pending: Pending) => void): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#pending.delete(id);
    pending.cleanup();
    action(pending);
  }
}
