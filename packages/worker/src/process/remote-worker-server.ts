import { createHash, timingSafeEqual } from "node:crypto";
import { mkdir, realpath } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import type { WebSocket } from "ws";
import { toWireError, serveWorkspace } from "./worker-server.ts";
import { decodeLine, parentMessageSchema } from "./protocol.ts";
import { remoteWorkspaceNameSchema } from "./remote-workspace.ts";
import { WorkspaceError } from "@cairn/core/workspace";

export type RemoteWorkerServerOptions = {
  host: string;
  port: number;
  /** The shared secret every client must send as `Authorization: Bearer <token>`. */
  token: string;
  /** Every workspace lives in a directory directly under this one. */
  root: string;
  /** Where workspaces keep their private directories (the shells' HOME and TMPDIR). */
  temporaryDirectory: string;
  /** PEM certificate and key: serve `wss://` instead of `ws://`. */
  tls?: { cert: string; key: string } | undefined;
  log: (line: string) => void;
};

export type RemoteWorkerServer = { url: string; close(): Promise<void> };

const digest = (value: string) => createHash("sha256").update(value).digest();

/** True when the request carries the token; compared in constant time (over digests, so lengths do not leak). */
function authorized(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization ?? "";
  const presented = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
  return timingSafeEqual(digest(presented), digest(token)) && presented !== "";
}

function refuse(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * `cairn worker --listen`: the worker protocol over WebSocket (one text frame per message), one workspace per
 * connection under `root`. A client picks the workspace by name (the `root` of its `init`); the worker puts
 * it under its own root, keeps its own temporary directory and drops extra directories, so a client can
 * reach nothing outside. The workspace is disposed when the socket closes.
 */
export async function startRemoteWorkerServer(options: RemoteWorkerServerOptions): Promise<RemoteWorkerServer> {
  if (options.token === "") throw new Error("CAIRN_WORKER_TOKEN must be set: a worker never serves without a token");
  const root = await realpath(options.root);
  const { WebSocketServer } = await import("ws");
  const server: Server = options.tls === undefined ? createHttpServer() : createHttpsServer({ cert: options.tls.cert, key: options.tls.key });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 * 1024 });
  server.on("request", (_request, response) => {
    response.writeHead(426, { "content-type": "text/plain" }).end("cairn worker: connect with a WebSocket\n");
  });
  server.on("upgrade", (request, socket, head) => {
    if (!authorized(request, options.token)) {
      options.log(`refused a connection from ${request.socket.remoteAddress ?? "?"}: wrong or missing token`);
      refuse(socket, "401 Unauthorized");
      return;
    }
    sockets.handleUpgrade(request, socket, head, (client) => serveConnection(client, root, options));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `${options.tls === undefined ? "ws" : "wss"}://${host}:${address.port}`,
    async close() {
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function serveConnection(client: WebSocket, root: string, options: RemoteWorkerServerOptions): void {
  const input = new PassThrough();
  // serveWorkspace writes one whole message (one line) per write.
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (client.readyState === client.OPEN) client.send(chunk.toString("utf8").trimEnd(), done);
      else done();
    },
  });
  let initialized = false;
  // Messages are handled in order: calls wait behind the init that creates the workspace directory.
  let queue = Promise.resolve();
  client.on("message", (data) => {
    queue = queue
      .then(async () => {
        const message = decodeLine(parentMessageSchema, data.toString());
        if (message === undefined) return;
        if (message.type !== "init") {
          input.write(`${JSON.stringify(message)}\n`);
          return;
        }
        if (initialized) return;
        initialized = true;
        const name = remoteWorkspaceNameSchema.safeParse(message.options.root);
        if (!name.success) {
          const error = new WorkspaceError("invalid_path", `Invalid workspace name: ${name.error.issues[0]?.message ?? "invalid"}`);
          client.send(JSON.stringify({ type: "init_failed", error: toWireError(error) }));
          return;
        }
        const workspaceRoot = join(root, name.data);
        await mkdir(workspaceRoot, { recursive: true });
        const { additionalDirectories: _dropped, cairnHome: _ignored, ...rest } = message.options;
        const init = { type: "init", options: { ...rest, root: workspaceRoot, temporaryDirectory: options.temporaryDirectory } };
        input.write(`${JSON.stringify(init)}\n`);
      })
      .catch((error: unknown) => options.log(`a message failed: ${(error as Error).message}`));
  });
  client.on("close", () => input.end());
  serveWorkspace(input, output).catch((error: unknown) => options.log(`a workspace failed: ${(error as Error).message}`));
}
