import type { ServerResponse } from "node:http";
import { statusForErrorType, errorTypeForStatus } from "./api-error.ts";
import { buildAssistantMessage } from "./assistant-message.ts";
import { demoTurn } from "./demo-model.ts";
import { sleep, writeEventStream, type StreamFault } from "./event-stream-writer.ts";
import { sendError, sendJson } from "./http-io.ts";
import { estimateInputTokens, parseMessagesRequest, textOf, type MessagesRequest } from "./messages-request.ts";
import type { Fault, Turn } from "./scenario.ts";
import type { ScriptCursor } from "./script-cursor.ts";
import { messageStreamEvents } from "./sse-events.ts";

export type SimMode = "script" | "demo";

export type MessagesContext = {
  mode: SimMode;
  cursor: ScriptCursor;
  chunkDelayMs: number;
  textChunkSize: number;
  onStreamWrite: ((chunk: string) => void) | undefined;
  nextMessageId(): string;
  nextDemoTurnIndex(): number;
  /** Records the request in the log; called exactly once, before anything is sent. */
  record(turnIndex: number | null, attempt: number): void;
};

type Served = { turn: Turn; turnIndex: number; fault: Fault | undefined };

export async function handleMessages(context: MessagesContext, body: unknown, response: ServerResponse, signal: AbortSignal): Promise<void> {
  const parsed = parseMessagesRequest(body);
  if (!parsed.ok) {
    context.record(null, 1);
    sendError(response, 400, "invalid_request_error", parsed.message);
    return;
  }
  const request = parsed.request;
  const served = assignTurn(context, request, response);
  if (!served) return;
  const { turn, turnIndex, fault } = served;

  if (fault?.kind === "http") {
    const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { "retry-after": String(fault.retryAfter) };
    sendError(response, fault.status, fault.errorType ?? errorTypeForStatus(fault.status), fault.message, headers);
    return;
  }
  const message = buildAssistantMessage(turn, {
    messageId: context.nextMessageId(),
    turnIndex,
    requestModel: request.model,
    estimatedInputTokens: estimateInputTokens(request),
  });
  if (request.stream === true) {
    await writeEventStream(response, messageStreamEvents(message, { textChunkSize: context.textChunkSize }), {
      chunkDelayMs: turn.chunkDelayMs ?? context.chunkDelayMs,
      fault,
      signal,
      onWrite: context.onStreamWrite,
    });
    return;
  }
  await answerWhole(response, message, fault, signal);
}

function assignTurn(context: MessagesContext, request: MessagesRequest, response: ServerResponse): Served | undefined {
  if (context.mode === "demo") {
    const turnIndex = context.nextDemoTurnIndex();
    context.record(turnIndex, 1);
    return { turn: demoTurn(request), turnIndex, fault: undefined };
  }
  const first = request.messages[0];
  const assignment = context.cursor.next({
    firstMessage: first ? JSON.stringify(first.content) : "",
    system: request.system === undefined ? "" : textOf(request.system),
    model: request.model,
  });
  if (assignment.kind === "exhausted") {
    context.record(null, assignment.attempt);
    // x-should-retry stops the SDK from retrying an answer that can never change.
    sendError(response, 500, "api_error", `model-sim: scenario exhausted after ${assignment.turnCount} turns`, { "x-should-retry": "false" });
    return undefined;
  }
  context.record(assignment.turnIndex, assignment.attempt);
  return assignment;
}

/** Non-streaming answers have no events, so stream faults map onto the whole response. */
async function answerWhole(response: ServerResponse, message: unknown, fault: StreamFault | undefined, signal: AbortSignal): Promise<void> {
  switch (fault?.kind) {
    case "disconnect":
      response.destroy();
      return;
    case "stream-error": {
      const errorType = fault.errorType ?? "overloaded_error";
      sendError(response, statusForErrorType(errorType), errorType, fault.message);
      return;
    }
    case "stall":
      await sleep(fault.ms, signal);
      break;
    case undefined:
      break;
  }
  if (!signal.aborted) sendJson(response, 200, message);
}
