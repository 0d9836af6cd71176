import { estimateCostUsd } from "../model/pricing.ts";
import { asArray, asNumber, asRecord, asString, contentText, THINKING_ONLY, type LooseRecord } from "./line-fields.ts";
import type { ModelDraft, PendingTool, Push, TimelineDraft } from "./thread-reader.ts";
import type { TimelineDetail, TimelineEvent, TokenCounts } from "./types.ts";

/** An assistant line: one model call per response (`message.id`), however many lines it was stored in. */
export function readAssistantLine(
  line: LooseRecord,
  at: number,
  key: string,
  uuid: string | null,
  responses: ModelDraft[],
  pending: Map<string, PendingTool>,
  push: Push,
  mainLane: (fallback: string) => string,
  isTombstoned: (key: string | null | undefined) => boolean,
  draft: TimelineDraft,
): void {
  const message = asRecord(line.message);
  const messageId = asString(message?.id) ?? key;
  // A response's lines are adjacent, or interleaved with a few tool results: the last few responses are enough.
  let response: ModelDraft | undefined;
  for (let back = responses.length - 1; back >= 0 && back >= responses.length - RECENT_RESPONSES; back--) {
    if (responses[back]!.detail.messageId === messageId) {
      response = responses[back];
      break;
    }
  }
  if (!response) {
    const detail: Extract<TimelineDetail, { kind: "model" }> = {
      kind: "model",
      model: asString(message?.model) ?? "unknown model",
      messageId,
      ttftMs: null,
      durationMs: null,
      attempts: 1,
      retries: 0,
      tokens: null,
      costUsd: 0,
      stopReason: null,
      text: "",
      thinking: "",
      toolUseIds: [],
      errorMessage: null,
    };
    const event = push({ id: `model:${messageId}`, kind: "model", lane: mainLane("model"), at, title: detail.model, lineUuid: uuid, detail });
    response = { event, detail };
    responses.push(response);
    if (responses.length > RECENT_RESPONSES * 4) responses.splice(0, responses.length - RECENT_RESPONSES);
  }
  const { event, detail } = response;
  const blocks = asArray(message?.content);
  const text = contentText(blocks);
  if (text) detail.text = detail.text ? `${detail.text}\n${text}` : text;
  const thinking = contentText(blocks, THINKING_ONLY);
  if (thinking) detail.thinking = detail.thinking ? `${detail.thinking}\n${thinking}` : thinking;
  const tombstoned = isTombstoned(uuid) || isTombstoned(messageId);
  for (const item of blocks) {
    const block = asRecord(item);
    if (block?.type !== "tool_use") continue;
    const toolUseId = asString(block.id);
    if (!toolUseId) continue;
    detail.toolUseIds.push(toolUseId);
    pending.set(toolUseId, { name: asString(block.name) ?? "unknown tool", input: block.input, at, lineUuid: uuid, tombstoned });
  }
  detail.stopReason = asString(message?.stop_reason) ?? detail.stopReason;
  const usage = asRecord(message?.usage);
  // Claude Code repeats the response's usage on each of its lines: the last one stands.
  if (usage) {
    detail.tokens = {
      input: asNumber(usage.input_tokens) ?? 0,
      output: asNumber(usage.output_tokens) ?? 0,
      cacheRead: asNumber(usage.cache_read_input_tokens) ?? 0,
      cacheWrite: asNumber(usage.cache_creation_input_tokens) ?? 0,
    };
    detail.costUsd = costOf(detail.model, detail.tokens);
  }
  applyModelCall(detail, event, asRecord(line.modelCall), draft);
  if (line.isApiErrorMessage === true) {
    detail.errorMessage = detail.text;
    event.status = "error";
  } else if (line.isPartial === true && event.status === "ok") {
    event.status = "partial";
  }
  if (tombstoned) event.status = "tombstoned";
}

function applyModelCall(detail: Extract<TimelineDetail, { kind: "model" }>, event: TimelineEvent, call: LooseRecord | undefined, draft: TimelineDraft): void {
  if (!call) return;
  const start = asNumber(call.startedAt);
  const end = asNumber(call.endedAt);
  const firstToken = asNumber(call.firstTokenAt);
  const attempts = Math.max(1, Math.floor(asNumber(call.attempts) ?? 1));
  detail.attempts = attempts;
  detail.retries = attempts - 1;
  if (start === undefined || end === undefined || end < start) return;
  draft.timed = true;
  event.start = start;
  event.end = end;
  event.at = start;
  event.timingKnown = true;
  detail.durationMs = end - start;
  detail.ttftMs = firstToken !== undefined && firstToken >= start ? firstToken - start : null;
}

const RECENT_RESPONSES = 16;

type Prices = { input: number; output: number; cacheRead: number; cacheWrite: number };
const priceCache = new Map<string, Prices>();

/** Per-token prices of a model: the price list is a regex scan, so each model is looked up once. */
function pricesOf(model: string): Prices {
  let prices = priceCache.get(model);
  if (prices === undefined) {
    const per = (inputTokens: number, outputTokens: number, cacheReadInputTokens: number, cacheCreationInputTokens: number) =>
      estimateCostUsd(model, { inputTokens, outputTokens, cacheReadInputTokens, cacheCreationInputTokens }) / 1_000_000;
    prices = { input: per(1_000_000, 0, 0, 0), output: per(0, 1_000_000, 0, 0), cacheRead: per(0, 0, 1_000_000, 0), cacheWrite: per(0, 0, 0, 1_000_000) };
    priceCache.set(model, prices);
  }
  return prices;
}

function costOf(model: string, tokens: TokenCounts): number {
  const prices = pricesOf(model);
  return tokens.input * prices.input + tokens.output * prices.output + tokens.cacheRead * prices.cacheRead + tokens.cacheWrite * prices.cacheWrite;
}
