import type { TranscriptLine } from "../schema/transcript.ts";
import type { TimelineSource } from "./types.ts";

/** Builders of Cairn transcript lines for the timeline tests: times are ms after T0. */
export const T0 = Date.parse("2026-11-29T10:00:00.000Z");
const iso = (ms: number) => new Date(T0 + ms).toISOString();

export function source(lines: unknown[], extra: Partial<TimelineSource> = {}): TimelineSource {
  return { sessionId: "s1", title: "Test", cwd: "/ws", imported: false, lines: lines as TranscriptLine[], sidechains: [], ...extra };
}

export function prompt(uuid: string, at: number, text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: "user", uuid, parentUuid: null, sessionId: "s1", timestamp: iso(at), message: { role: "user", content: text }, ...extra };
}

export type ToolUse = { id: string; name: string; input?: Record<string, unknown> };

export function assistant(
  uuid: string,
  call: { start: number; firstToken?: number; end: number; attempts?: number },
  options: { messageId?: string; text?: string; tools?: ToolUse[]; usage?: Record<string, number>; extra?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    type: "assistant",
    uuid,
    sessionId: "s1",
    timestamp: iso(call.end),
    message: {
      id: options.messageId ?? `msg-${uuid}`,
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [
        ...(options.text ? [{ type: "text", text: options.text }] : []),
        ...(options.tools ?? []).map((tool) => ({ type: "tool_use", id: tool.id, name: tool.name, input: tool.input ?? {} })),
      ],
      usage: options.usage ?? { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 50, cache_creation_input_tokens: 10 },
    },
    modelCall: {
      model: "claude-sonnet-4-5",
      startedAt: T0 + call.start,
      firstTokenAt: call.firstToken === undefined ? null : T0 + call.firstToken,
      endedAt: T0 + call.end,
      attempts: call.attempts ?? 1,
    },
    ...options.extra,
  };
}

export function toolResult(
  uuid: string,
  tool: ToolUse,
  call: { start: number; end: number; waitMs?: number; batch?: number; isError?: boolean; asked?: boolean; hooks?: unknown[]; errorClass?: string },
  output = "ok",
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    type: "user",
    uuid,
    sessionId: "s1",
    timestamp: iso(call.end),
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: tool.id, content: output, ...(call.isError ? { is_error: true } : {}) }] },
    toolCall: {
      toolUseId: tool.id,
      name: tool.name,
      startedAt: T0 + call.start,
      endedAt: T0 + call.end,
      durationMs: call.end - call.start,
      permissionWaitMs: call.waitMs ?? 0,
      isError: call.isError ?? false,
      ...(call.batch === undefined ? {} : { batch: call.batch }),
      ...(call.asked ? { decision: { behavior: "allow", reason: { type: "user", scope: "once" }, waitedMs: call.waitMs ?? 0, asked: true } } : {}),
      ...(call.errorClass ? { errorClass: call.errorClass } : {}),
      ...(call.hooks ? { hooks: call.hooks } : {}),
    },
    ...extra,
  };
}
