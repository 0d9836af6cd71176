import type { IncomingMessage, ServerResponse } from "node:http";

/** Each dependency's state: "ok" or what is wrong. */
export type ReadinessChecks = Record<string, string>;

export type HealthOptions = {
  nodeId: string | undefined;
  /** False once the node is shutting down: it drains and should get no new traffic. */
  accepting: () => boolean;
  /** The shared services' states (distributed mode); none when embedded. */
  checks: () => Promise<ReadinessChecks>;
};

/**
 * `/healthz` (the process answers) and `/readyz` (it can serve: not draining, every shared service
 * reachable), GET or HEAD, before any host or access check so a load balancer or an orchestrator
 * can probe it by address. They say nothing but states. Returns whether the request was one of them.
 */
export function answerHealth(request: IncomingMessage, response: ServerResponse, options: HealthOptions): boolean {
  const path = (request.url ?? "/").split("?")[0];
  if (path !== "/healthz" && path !== "/readyz") return false;
  const method = (request.method ?? "GET").toUpperCase();
  request.resume();
  if (method !== "GET" && method !== "HEAD") {
    response.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" });
    response.end("405 Method Not Allowed\n");
    return true;
  }
  const reply = (status: number, body: object) => {
    response.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" });
    response.end(method === "HEAD" ? undefined : `${JSON.stringify(body)}\n`);
  };
  const nodeId = options.nodeId === undefined ? {} : { nodeId: options.nodeId };
  if (path === "/healthz") {
    reply(200, { status: "ok", ...nodeId });
    return true;
  }
  if (!options.accepting()) {
    reply(503, { status: "draining", ...nodeId });
    return true;
  }
  options.checks().then(
    (checks) => {
      const ready = Object.values(checks).every((state) => state === "ok");
      reply(ready ? 200 : 503, { status: ready ? "ready" : "unavailable", ...nodeId, checks });
    },
    (error: unknown) => reply(503, { status: "unavailable", ...nodeId, error: (error as Error).message }),
  );
  return true;
}
