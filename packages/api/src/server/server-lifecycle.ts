import type { Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { BrowserSessionStore } from "../auth/browser-sessions.ts";
import type { DistributedNode } from "../distributed/start-distributed.ts";
import type { SessionHub } from "../hub/session-hub.ts";
import type { Runtime } from "../runtime/runtime-types.ts";
import type { ShareRepository } from "../share/share-records.ts";
import type { TerminalManager } from "../terminal/terminal-manager.ts";
import type { WebHandler } from "./next-handler.ts";

/** Binds the port; resolves with the one bound (0 picks a free port). */
export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** The open HTTP connections (SSE streams included), counted as they open and close. */
export function trackConnections(server: Server): { count(): number } {
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return { count: () => sockets.size };
}

/** What a server holds; each part is undefined when start-up failed before it was made. */
export type ServerParts = {
  server: Server | undefined;
  hub: SessionHub | undefined;
  terminals: TerminalManager | undefined;
  web: WebHandler | undefined;
  runtime: Runtime;
  shares?: ShareRepository | undefined;
  browserSessions?: BrowserSessionStore | undefined;
  distributed?: DistributedNode | undefined;
};

/** Closes every part, the connections first (so sessions and streams end), the runtime and distributed services last. */
export async function shutdown(parts: ServerParts): Promise<void> {
  const { server } = parts;
  const closed = server?.listening
    ? new Promise<void>((resolve) => {
        server.close(() => resolve());
      })
    : Promise.resolve();
  // SSE streams never end on their own; dropping them aborts their subscriptions.
  server?.closeAllConnections();
  await Promise.allSettled([parts.hub?.close(), parts.terminals?.closeAll()]);
  await parts.shares?.close().catch(() => undefined);
  parts.browserSessions?.close();
  await closed;
  await parts.web?.close().catch(() => undefined);
  await parts.runtime.close();
  await parts.distributed?.close().catch(() => undefined);
}
