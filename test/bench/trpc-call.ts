import { Agent } from "node:http";
import { trpcHttpCall } from "@cairn/api";

/** Kept-alive connections for the benchmarks' own calls: fetch (undici) costs the shared machine several times more CPU per call. */
const agent = new Agent({ keepAlive: true, maxSockets: 32 });

/**
 * A tRPC query (GET) or mutation (POST) on a Cairn server, over node:http: the benchmark's 100 `session.send` calls land
 * while the deltas stream, on the cores the server uses, so they should cost as little as they can.
 */
export function trpcCall<T = unknown>(
  server: { url: string; token: string; nodeId?: string },
  path: string,
  input: unknown,
  method: "GET" | "POST" = "POST",
): Promise<T> {
  return trpcHttpCall<T>(server, path, input, { method, agent, label: server.nodeId === undefined ? path : `${path} on ${server.nodeId}` });
}
