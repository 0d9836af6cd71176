import { Agent, request } from "node:http";

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
  const json = JSON.stringify(input);
  const what = server.nodeId === undefined ? path : `${path} on ${server.nodeId}`;
  const url = method === "GET" ? `${server.url}/api/trpc/${path}?input=${encodeURIComponent(json)}` : `${server.url}/api/trpc/${path}`;
  return new Promise<T>((resolve, reject) => {
    const outgoing = request(url, { method, agent, headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.on("error", reject);
      response.on("end", () => {
        let body: { result?: { data: T }; error?: unknown };
        try {
          body = JSON.parse(text) as typeof body;
        } catch {
          return reject(new Error(`${what} answered ${response.statusCode} with ${text.slice(0, 200)}`));
        }
        if (response.statusCode !== 200 || !body.result) return reject(new Error(`${what} failed (${response.statusCode}): ${JSON.stringify(body.error)}`));
        resolve(body.result.data);
      });
    });
    outgoing.on("error", reject);
    outgoing.end(method === "POST" ? json : undefined);
  });
}
