import { type Agent, request } from "node:http";

/**
 * One tRPC query (GET) or mutation (POST) on a Cairn server over plain `node:http` with its access token: the node's
 * warm-up drives its scratch servers with it, and the benchmarks their nodes (a kept-alive `agent` costs a shared
 * machine much less CPU per call than fetch). Resolves with the result's data; rejects with the status and the start
 * of the body when the call failed.
 */
export function trpcHttpCall<T = unknown>(
  server: { url: string; token: string },
  path: string,
  input: unknown,
  options: { method?: "GET" | "POST"; agent?: Agent; label?: string } = {},
): Promise<T> {
  const method = options.method ?? "POST";
  const json = JSON.stringify(input);
  const url = method === "GET" ? `${server.url}/api/trpc/${path}?input=${encodeURIComponent(json)}` : `${server.url}/api/trpc/${path}`;
  const what = options.label ?? path;
  const headers = { authorization: `Bearer ${server.token}`, "content-type": "application/json" };
  return new Promise<T>((resolve, reject) => {
    const outgoing = request(url, { method, headers, ...(options.agent ? { agent: options.agent } : {}) }, (response) => {
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
