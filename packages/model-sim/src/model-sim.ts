import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { apiErrorBody } from "./api-error.ts";
import { BodyError, flattenHeaders, parseJsonBody, readBody, sendError, sendJson } from "./http-io.ts";
import { handleMessages, type MessagesContext, type SimMode } from "./messages-handler.ts";
import { estimateInputTokens, parseMessagesRequest } from "./messages-request.ts";
import { parseScenario, ScenarioError, type Scenario } from "./scenario.ts";
import { ScriptCursor } from "./script-cursor.ts";

export type ModelSimOptions = {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default: no turns, so the first request reports the script as exhausted. */
  scenario?: Scenario;
  /** "demo" answers every request with the offline demo model and ignores the scenario. */
  mode?: SimMode;
  /** Pause between SSE events; a turn's `chunkDelayMs` overrides it. Default 0. */
  chunkDelayMs?: number;
  /** Characters per text/thinking delta. Default 16. */
  textChunkSize?: number;
  /**
   * Test instruments: the request log (`requests`, `GET /_sim/requests`) and the `/_sim/*` control routes. Default
   * true; the offline demo model that runs inside Cairn turns them off, so it keeps no conversation and none can be read back.
   */
  instruments?: boolean;
  /**
   * Test instrument: called with each piece of a streamed answer right after it is handed to the response's socket
   * (a latency benchmark stamps the deltas it carries there, with no proxy in between).
   */
  onStreamWrite?: (chunk: string) => void;
};

export type RecordedRequest = {
  path: string;
  method: string;
  headers: Record<string, string>;
  /** Parsed JSON body; the raw text when it was not JSON; undefined when empty. */
  body: unknown;
  receivedAt: number;
  /** The scripted (or demo) turn this request was served from; null when it got none. */
  turnIndex: number | null;
  /** 1 for the first request for this turn, 2 for its first retry, … */
  attempt: number;
};

export type ModelSim = {
  /** Base URL for the SDK's `baseURL`, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Live log of every API request received, in order. */
  requests: RecordedRequest[];
  /** Replaces the script and rewinds the turn cursor; throws `ScenarioError` on an invalid scenario. */
  setScenario(scenario: Scenario): void;
  remainingTurns(): number;
  /** Closes the server and destroys open sockets, including streams still being written. */
  close(): Promise<void>;
};

const DEFAULT_TEXT_CHUNK_SIZE = 16;

export async function startModelSim(options: ModelSimOptions = {}): Promise<ModelSim> {
  const host = options.host ?? "127.0.0.1";
  const mode = options.mode ?? "script";
  const cursor = new ScriptCursor(parseScenario(options.scenario ?? { turns: [] }));
  const textChunkSize = options.textChunkSize ?? DEFAULT_TEXT_CHUNK_SIZE;
  if (!Number.isInteger(textChunkSize) || textChunkSize < 1) {
    throw new RangeError(`model-sim: textChunkSize must be a positive integer, got ${textChunkSize}`);
  }
  const requests: RecordedRequest[] = [];
  let requestCount = 0;
  let messageCount = 0;
  let demoTurnCount = 0;

  const reset = (): void => {
    cursor.rewind();
    requests.length = 0;
    demoTurnCount = 0;
  };

  const instruments = options.instruments ?? true;

  const route = async (request: IncomingMessage, response: ServerResponse, signal: AbortSignal): Promise<void> => {
    const path = new URL(request.url ?? "/", "http://model-sim").pathname;
    const method = request.method ?? "GET";
    if (!instruments && path.startsWith("/_sim/")) return sendError(response, 404, "not_found_error", `model-sim: no route ${method} ${path}`);
    if (method === "GET" && path === "/_sim/requests") return sendJson(response, 200, requests);
    if (method !== "POST") return sendError(response, 404, "not_found_error", `model-sim: no route ${method} ${path}`);

    const parsedBody = parseJsonBody(await readBody(request));
    const body = parsedBody.ok ? parsedBody.value : parsedBody.text;
    if (path === "/_sim/reset") {
      reset();
      return sendJson(response, 200, { ok: true });
    }
    if (path === "/_sim/scenario") {
      if (!parsedBody.ok) return sendError(response, 400, "invalid_request_error", parsedBody.message);
      cursor.replace(parseScenario(body, "scenario posted to /_sim/scenario"));
      return sendJson(response, 200, { ok: true, turns: cursor.remaining() });
    }
    const receivedAt = Date.now();
    const record = (turnIndex: number | null, attempt: number): void => {
      if (instruments) requests.push({ path, method, headers: flattenHeaders(request), body, receivedAt, turnIndex, attempt });
    };
    const isApiPath = path === "/v1/messages" || path === "/v1/messages/count_tokens";
    if (isApiPath && !parsedBody.ok) {
      record(null, 1);
      return sendError(response, 400, "invalid_request_error", parsedBody.message);
    }
    if (path === "/v1/messages/count_tokens") {
      record(null, 1);
      const parsed = parseMessagesRequest(body);
      if (!parsed.ok) return sendError(response, 400, "invalid_request_error", parsed.message);
      return sendJson(response, 200, { input_tokens: estimateInputTokens(parsed.request) });
    }
    if (path === "/v1/messages") {
      const context: MessagesContext = {
        mode,
        cursor,
        chunkDelayMs: options.chunkDelayMs ?? 0,
        textChunkSize,
        onStreamWrite: options.onStreamWrite,
        nextMessageId: () => `msg_sim_${++messageCount}`,
        nextDemoTurnIndex: () => demoTurnCount++,
        record,
      };
      return handleMessages(context, body, response, signal);
    }
    return sendError(response, 404, "not_found_error", `model-sim: no route ${method} ${path}`);
  };

  const server = createServer((request, response) => {
    response.setHeader("request-id", `req_sim_${++requestCount}`);
    const aborter = new AbortController();
    response.once("close", () => aborter.abort());
    route(request, response, aborter.signal).catch((error: unknown) => failRequest(response, error));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost(host)}:${port}`,
    requests,
    setScenario: (scenario) => cursor.replace(parseScenario(scenario)),
    remainingTurns: () => (mode === "demo" ? Number.POSITIVE_INFINITY : cursor.remaining()),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function failRequest(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  if (error instanceof ScenarioError || error instanceof BodyError) {
    sendJson(response, error instanceof BodyError ? 413 : 400, apiErrorBody("invalid_request_error", error.message));
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  sendJson(response, 500, apiErrorBody("api_error", `model-sim: internal error: ${message}`));
}

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::" || host === "") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}
