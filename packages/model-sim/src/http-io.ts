import type { IncomingMessage, ServerResponse } from "node:http";
import { apiErrorBody } from "./api-error.ts";

const MAX_BODY_BYTES = 64 * 1024 * 1024;

export class BodyError extends Error {
  readonly code: "body_too_large";

  constructor(code: BodyError["code"], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "BodyError";
    this.code = code;
  }
}

export async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request) {
    const buffer = part as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new BodyError("body_too_large", `model-sim: request body over ${MAX_BODY_BYTES} bytes`);
    parts.push(buffer);
  }
  return Buffer.concat(parts).toString("utf8");
}

export type JsonBody = { ok: true; value: unknown } | { ok: false; text: string; message: string };

/** Parses a JSON body; an empty body is `undefined`. */
export function parseJsonBody(text: string): JsonBody {
  if (text.trim().length === 0) return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, text, message: `model-sim: request body is not valid JSON: ${(error as Error).message}` };
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

export function sendError(
  response: ServerResponse,
  status: number,
  errorType: string,
  message: string | undefined,
  headers: Record<string, string> = {},
): void {
  sendJson(response, status, apiErrorBody(errorType, message), headers);
}

export function flattenHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}
