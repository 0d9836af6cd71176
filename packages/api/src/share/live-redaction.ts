import type { SessionEvent } from "../router/types.ts";
import type { Redactor } from "./redact.ts";

type ToolProgress = Extract<SessionEvent, { type: "tool-progress" }>;
/** Text accumulated for one stream (a content block, or one output stream of a Bash call), and how to send a piece of it. */
type Stream = { pending: string; event: (text: string) => SessionEvent };
type BashProgress = { type: "bash_progress"; stream: string; chunk: string };

/** Past this many characters without a newline, the text up to the last space is let through. */
const DEFAULT_MAX_HELD = 2_000;
const OPEN_KEY = /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * Redacts one subscriber's live events. Whole events (messages, tool calls, permission requests,
 * state) go through the redactor as JSON values. Streamed text cannot be redacted piece by piece —
 * a key may arrive in two deltas — so each block's text (and each Bash call's output) is accumulated
 * and only complete lines are let out, redacted (every secret shape but a PEM block is one line long;
 * an open PEM block is held until its END line). The rest comes out at the block's `block-stop` (the
 * call's `tool-end`). Not forwarded: tool input deltas (partial JSON; `tool-start` and the `message`
 * carry the whole input, redacted) and other tools' progress (subagent sidechains, which a share does
 * not show; their results arrive with the tool result).
 */
export class LiveEventRedactor {
  private readonly redactor: Redactor;
  private readonly maxHeld: number;
  private streams = new Map<string, Stream>();

  constructor(redactor: Redactor, options: { maxHeldChars?: number } = {}) {
    this.redactor = redactor;
    this.maxHeld = options.maxHeldChars ?? DEFAULT_MAX_HELD;
  }

  /** What to send for one published event: none, one, or (at a stream's end) the held text then the event. */
  redact(event: SessionEvent): SessionEvent[] {
    switch (event.type) {
      case "message-start":
        for (const key of [...this.streams.keys()]) if (key.startsWith("block:")) this.streams.delete(key);
        return [this.redactor.redactValue(event).value];
      case "block-start":
        this.streams.delete(`block:${event.index}`);
        return [this.redactor.redactValue(event).value];
      case "text-delta":
        return this.append(`block:${event.index}`, event.text, (text) => ({ type: "text-delta", index: event.index, text }));
      case "thinking-delta":
        return this.append(`block:${event.index}`, event.thinking, (thinking) => ({ type: "thinking-delta", index: event.index, thinking }));
      case "tool-input-delta":
        return [];
      case "block-stop":
        return [...this.finish(`block:${event.index}`), event];
      case "tool-progress": {
        if (!isBashProgress(event.data)) return [];
        const data = event.data;
        return this.append(`bash:${event.toolUseId}:${data.stream}`, data.chunk, (chunk): ToolProgress => ({ ...event, data: { ...data, chunk } }));
      }
      case "tool-end": {
        const prefix = `bash:${event.record.toolUseId}:`;
        const held = [...this.streams.keys()].filter((key) => key.startsWith(prefix)).flatMap((key) => this.finish(key));
        return [...held, this.redactor.redactValue(event).value];
      }
      default:
        return [this.redactor.redactValue(event).value];
    }
  }

  private append(key: string, text: string, event: (text: string) => SessionEvent): SessionEvent[] {
    let stream = this.streams.get(key);
    if (!stream) {
      stream = { pending: "", event };
      this.streams.set(key, stream);
    }
    stream.pending += text;
    const out = this.settle(stream, false);
    return out ? [stream.event(out)] : [];
  }

  private finish(key: string): SessionEvent[] {
    const stream = this.streams.get(key);
    this.streams.delete(key);
    if (!stream) return [];
    const out = this.settle(stream, true);
    return out ? [stream.event(out)] : [];
  }

  /**
   * Redacts and takes the settled part of what is pending. It starts at a line start outside any open
   * key block, and secrets do not span lines, so redacting it alone is the same as redacting it in
   * context — and each character is redacted once, however long the block grows.
   */
  private settle(stream: Stream, final: boolean): string {
    const end = final ? stream.pending.length : this.settledLength(stream.pending);
    if (end === 0) return "";
    const out = this.redactor.redactText(stream.pending.slice(0, end)).text;
    stream.pending = stream.pending.slice(end);
    return out;
  }

  private settledLength(raw: string): number {
    let end = raw.lastIndexOf("\n") + 1;
    if (raw.length - end > this.maxHeld) {
      const space = raw.lastIndexOf(" ", raw.length - 200);
      if (space > end) end = space + 1;
    }
    const open = openPrivateKeyStart(raw);
    if (open !== undefined && open < end) end = raw.lastIndexOf("\n", open) + 1;
    return end;
  }
}

function isBashProgress(data: unknown): data is BashProgress {
  if (typeof data !== "object" || data === null) return false;
  const record = data as Record<string, unknown>;
  return record.type === "bash_progress" && typeof record.chunk === "string" && typeof record.stream === "string";
}

/** Where an unterminated private key block starts, if the text has one. */
function openPrivateKeyStart(raw: string): number | undefined {
  if (!raw.includes("PRIVATE KEY")) return undefined;
  let last: number | undefined;
  for (const match of raw.matchAll(OPEN_KEY)) last = match.index;
  if (last === undefined) return undefined;
  return /-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----/.test(raw.slice(last)) ? undefined : last;
}
