import { WorkspaceError } from "@cairn/core/workspace";
import type WebSocket from "ws";
import type { LocalWorkspaceOptions } from "../settings.ts";
import { type CallHandlers, PendingCalls, wireError } from "./pending-calls.ts";
import type { ProtocolConnection } from "./protocol-workspace.ts";
import { childMessageSchema, decodeLine, type MethodName, type MethodParams, type ParentMessage } from "./protocol.ts";

export type RemoteConnectionOptions = {
  /** `ws://host:port` or `wss://host:port` of a `cairn worker --listen`. */
  url: string;
  token: string;
  /** What the worker needs to open the workspace; `root` is the workspace's name under the worker's own root. */
  options: LocalWorkspaceOptions;
  /** Wait this long before dialing (the backoff after failed attempts). */
  delayMs: number;
  /** PEM certificates to trust for `wss://` besides the system's (a self-signed worker). */
  ca?: string | undefined;
};

/** One WebSocket to a remote worker and the calls in flight on it. Once the socket closes, the connection is dead for good. */
export class RemoteConnection implements ProtocolConnection {
  readonly pid = undefined;
  /** Resolves with the worker's path of the workspace once it is open; rejects if the worker cannot be reached. */
  readonly ready: Promise<string>;
  private socket: WebSocket | undefined;
  private readonly calls = new PendingCalls();
  private closedReason: string | undefined;
  private markClosed: () => void = () => undefined;
  private readonly closed = new Promise<void>((resolve) => {
    this.markClosed = resolve;
  });
  private cancelDial: () => void = () => undefined;

  private readonly settings: RemoteConnectionOptions;

  constructor(settings: RemoteConnectionOptions) {
    this.settings = settings;
    this.ready = new Promise<string>((resolve, reject) => {
      // ws is imported on the first dial: a process that never talks to a remote worker does not load it.
      const timer = setTimeout(() => {
        import("ws").then(({ default: WebSocketClass }) => this.dial(WebSocketClass, resolve, reject), reject);
      }, settings.delayMs);
      this.cancelDial = () => {
        clearTimeout(timer);
        reject(new WorkspaceError("worker_unavailable", "The connection to the remote worker was closed"));
      };
    });
    this.ready.catch(() => undefined);
  }

  get alive(): boolean {
    return this.closedReason === undefined;
  }

  async call<M extends MethodName>(method: M, params: MethodParams<M>, handlers: CallHandlers): Promise<unknown> {
    const { signal } = handlers;
    signal?.throwIfAborted();
    await this.ready;
    signal?.throwIfAborted();
    if (this.closedReason !== undefined) throw this.unavailable(method);
    return this.calls.start(method, params, handlers, (message) => this.send(message));
  }

  async close(): Promise<void> {
    if (this.socket === undefined) {
      this.cancelDial();
      this.fail("closed by this node");
      return;
    }
    this.socket.close(1000);
    const timer = setTimeout(() => this.socket?.terminate(), 5_000);
    await this.closed;
    clearTimeout(timer);
  }

  private dial(WebSocketClass: typeof WebSocket, resolve: (root: string) => void, reject: (error: unknown) => void): void {
    // Closed while ws was being imported: the ready promise was already rejected.
    if (this.closedReason !== undefined) return;
    const url = this.settings.url;
    const socket = new WebSocketClass(url, {
      headers: { authorization: `Bearer ${this.settings.token}` },
      handshakeTimeout: 10_000,
      maxPayload: 256 * 1024 * 1024,
      ...(this.settings.ca === undefined ? {} : { ca: this.settings.ca }),
    });
    this.socket = socket;
    socket.on("unexpected-response", (_request, response) => {
      const status = response.statusCode ?? 0;
      const reason = status === 401 ? "the worker refused the token (CAIRN_WORKER_TOKEN differs)" : `the worker answered HTTP ${status}`;
      reject(new WorkspaceError("worker_unavailable", `Could not connect to the remote worker ${url}: ${reason}`));
      socket.terminate();
    });
    socket.on("open", () => this.send({ type: "init", options: this.settings.options }));
    socket.on("message", (data: WebSocket.RawData) => {
      const message = decodeLine(childMessageSchema, data.toString());
      if (message === undefined) return;
      switch (message.type) {
        case "ready":
          resolve(message.root);
          return;
        case "init_failed":
          reject(wireError(message.error));
          socket.close();
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
    socket.on("error", (error) => {
      reject(new WorkspaceError("worker_unavailable", `Could not connect to the remote worker ${url}: ${error.message}`, { cause: error }));
    });
    socket.on("close", (code) => {
      reject(new WorkspaceError("worker_unavailable", `The remote worker ${url} closed the connection (code ${code})`));
      this.fail(`the connection to ${url} closed (code ${code})`);
    });
  }

  private fail(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    this.calls.failAll((method) => this.unavailable(method));
    this.markClosed();
  }

  private unavailable(method: MethodName): WorkspaceError {
    return new WorkspaceError(
      "worker_unavailable",
      `The remote workspace worker is unreachable (${this.closedReason ?? "not connected"}) during ${method}; the next call reconnects`,
    );
  }

  private send(message: ParentMessage): void {
    if (this.socket === undefined || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(JSON.stringify(message));
  }
}
