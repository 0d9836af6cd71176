import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { WorkspaceError } from "@cairn/core/workspace";
import { serveGitRequest } from "../git/git-protocol.ts";
import { GitError } from "../git/git-runner.ts";
import { createLocalWorkspace, type WorkerWorkspace } from "../local-workspace.ts";
import { ServedTerminals } from "../terminal/served-terminals.ts";
import {
  decodeLine,
  encodeLine,
  methodSchemas,
  parentMessageSchema,
  type ChildMessage,
  type MethodName,
  type MethodResult,
  type WireError,
} from "./protocol.ts";

export function toWireError(error: unknown): WireError {
  if (error instanceof GitError) return { code: "io_error", message: error.message, gitCode: error.code };
  if (error instanceof WorkspaceError) return { code: error.code, message: error.message, ...(error.path === undefined ? {} : { path: error.path }) };
  const message = error instanceof Error ? error.message : String(error);
  return { code: "io_error", message };
}

type Call = { id: number; signal: AbortSignal; send: (message: ChildMessage) => void; terminals: ServedTerminals };

async function dispatch(workspace: WorkerWorkspace, method: MethodName, rawParams: unknown, call: Call): Promise<MethodResult<MethodName>> {
  const { signal } = call;
  switch (method) {
    case "resolve":
      return workspace.resolve(methodSchemas.resolve.params.parse(rawParams).path);
    case "stat":
      return workspace.stat(methodSchemas.stat.params.parse(rawParams).path);
    case "readFile": {
      const data = await workspace.readFile(methodSchemas.readFile.params.parse(rawParams).path, { signal });
      return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
    }
    case "writeFile": {
      const params = methodSchemas.writeFile.params.parse(rawParams);
      const data = params.data.encoding === "utf8" ? params.data.value : new Uint8Array(Buffer.from(params.data.value, "base64"));
      return workspace.writeFile(params.path, data, { signal });
    }
    case "list":
      return workspace.list(methodSchemas.list.params.parse(rawParams).path);
    case "mkdir":
      await workspace.mkdir(methodSchemas.mkdir.params.parse(rawParams).path);
      return null;
    case "remove":
      await workspace.remove(methodSchemas.remove.params.parse(rawParams).path);
      return null;
    case "rename": {
      const params = methodSchemas.rename.params.parse(rawParams);
      await workspace.rename(params.from, params.to);
      return null;
    }
    case "glob": {
      const params = methodSchemas.glob.params.parse(rawParams);
      return workspace.glob(params.pattern, { ...(params.path === undefined ? {} : { path: params.path }), limit: params.limit, signal });
    }
    case "grep":
      return workspace.grep(methodSchemas.grep.params.parse(rawParams).query, { signal });
    case "exec": {
      const params = methodSchemas.exec.params.parse(rawParams);
      return workspace.exec(params.command, {
        shellId: params.shellId,
        timeoutMs: params.timeoutMs,
        signal,
        ...(params.maxOutputChars === undefined ? {} : { maxOutputChars: params.maxOutputChars }),
        ...(params.streamOutput ? { onOutput: (chunk) => call.send({ type: "output", id: call.id, chunk }) } : {}),
      });
    }
    case "startBackground": {
      const params = methodSchemas.startBackground.params.parse(rawParams);
      return workspace.startBackground(params.command, { shellId: params.shellId });
    }
    case "readBackground":
      return workspace.readBackground(methodSchemas.readBackground.params.parse(rawParams).id);
    case "killBackground":
      return workspace.killBackground(methodSchemas.killBackground.params.parse(rawParams).id);
    case "watch": {
      methodSchemas.watch.params.parse(rawParams);
      workspace.watch((event) => call.send({ type: "event", id: call.id, event }), signal);
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener("abort", () => resolve(), { once: true });
      });
      return null;
    }
    case "git":
      return serveGitRequest(workspace.git, methodSchemas.git.params.parse(rawParams).request);
    case "dispose":
      await workspace.dispose();
      return null;
    case "terminalOpen":
      return call.terminals.open(workspace.terminals, rawParams, { signal, send: (event) => call.send({ type: "terminal", id: call.id, event }) });
    case "terminalInput":
      return call.terminals.input(rawParams);
    case "terminalResize":
      return call.terminals.resize(rawParams);
    case "terminalAck":
      return call.terminals.acknowledge(rawParams);
  }
}

/**
 * The child side: reads an `init` then calls from `input`, answers on `output`. Ends (disposing the
 * workspace) when `input` closes, which is how a dead parent is noticed.
 */
export async function serveWorkspace(input: Readable, output: Writable): Promise<void> {
  const send = (message: ChildMessage) => {
    output.write(encodeLine(message));
  };
  const calls = new Map<number, AbortController>();
  const terminals = new ServedTerminals();
  let workspace: Promise<WorkerWorkspace> | undefined;
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    const message = decodeLine(parentMessageSchema, line);
    if (message === undefined) {
      process.stderr.write(`cairn worker: ignoring an invalid message: ${line.slice(0, 200)}\n`);
      continue;
    }
    switch (message.type) {
      case "init": {
        workspace = createLocalWorkspace(message.options);
        workspace.then(
          (ready) => send({ type: "ready", root: ready.root }),
          (error: unknown) => send({ type: "init_failed", error: toWireError(error) }),
        );
        break;
      }
      case "abort":
        calls.get(message.id)?.abort(new DOMException("Aborted by the parent", "AbortError"));
        break;
      case "call": {
        const controller = new AbortController();
        calls.set(message.id, controller);
        const call: Call = { id: message.id, signal: controller.signal, send, terminals };
        const pending = workspace ?? Promise.reject(new WorkspaceError("worker_unavailable", "The worker received a call before init"));
        pending
          .then((ready) => dispatch(ready, message.method, message.params, call))
          .then(
            (value) => send({ type: "result", id: message.id, value }),
            (error: unknown) => send({ type: "error", id: message.id, error: toWireError(error) }),
          )
          .finally(() => calls.delete(message.id));
        break;
      }
    }
  }
  for (const controller of calls.values()) controller.abort();
  if (workspace !== undefined) await (await workspace.catch(() => undefined))?.dispose();
}
