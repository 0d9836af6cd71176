import type { SessionEvent } from "../router/types.ts";
import type { Redactor } from "./redact.ts";

type TextDelta = Extract<SessionEvent, { type: "text-delta" }>;
type ThinkingDelta = Extract<SessionEvent, { type: "thinking-delta" }>;
type Block = { kind: "text" | "thinking"; raw: string; emitted: number };

/** Past this many characters without a newline, the text up to the last space is let through. */
const DEFAULT_MAX_HELD = 2_000;
const OPEN_KEY = /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * Redacts one subscriber's live events. Whole events (messages, tool calls, permission requests,
 * state) go through the redactor as JSON values. Streamed text cannot be redacted piece by piece —
 * a key may arrive in two deltas — so each block's text is accumulated and only complete lines are
 * let out, redacted (every secret shape but a PEM block is one line long; an open PEM block is held
 * until its END line). The rest of a block comes out at its `block-stop`. Tool input deltas (partial
 * JSON) are not forwarded: `tool-start` and the `message` carry the whole input, redacted.
 */
export class LiveEventRedactor {
  private readonly redactor: Redactor;
  private readonly maxHeld: number;
  private blocks = new Map<number, Block>();

  constructor(redactor: Redactor, options: { maxHeldChars?: number } = {}) {
    this.redactor = redactor;
    this.maxHeld = options.maxHeldChars ?? DEFAULT_MAX_HELD;
  }

  /** What to send for one published event: none, one, or (at a block's end) the held text then the event. */
  redact(event: SessionEvent): SessionEvent[] {
    switch (event.type) {
      case "message-start":
        this.blocks = new Map();
        return [this.redactor.redactValue(event).value];
      case "block-start":
        this.blocks.delete(event.index);
        return [this.redactor.redactValue(event).value];
      case "text-delta": {
        const text = this.append(event.index, "text", event.text, false);
        return text ? [textDelta(event.index, text)] : [];
      }
      case "thinking-delta": {
        const thinking = this.append(event.index, "thinking", event.thinking, false);
        return thinking ? [thinkingDelta(event.index, thinking)] : [];
      }
      case "tool-input-delta":
        return [];
      case "block-stop": {
        const block = this.blocks.get(event.index);
        this.blocks.delete(event.index);
        if (!block) return [event];
        const rest = this.settle(block, true);
        if (!rest) return [event];
        return [block.kind === "text" ? textDelta(event.index, rest) : thinkingDelta(event.index, rest), event];
      }
      default:
        return [this.redactor.redactValue(event).value];
    }
  }

  private append(index: number, kind: Block["kind"], text: string, final: boolean): string {
    let block = this.blocks.get(index);
    if (!block || block.kind !== kind) {
      block = { kind, raw: "", emitted: 0 };
      this.blocks.set(index, block);
    }
    block.raw += text;
    return this.settle(block, final);
  }

  /** The redacted text of the block's settled part not sent yet. */
  private settle(block: Block, final: boolean): string {
    const end = final ? block.raw.length : this.settledLength(block.raw);
    if (end === 0) return "";
    const redacted = this.redactor.redactText(block.raw.slice(0, end)).text;
    if (redacted.length <= block.emitted) return "";
    const out = redacted.slice(block.emitted);
    block.emitted = redacted.length;
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

/** Where an unterminated private key block starts, if the text has one. */
function openPrivateKeyStart(raw: string): number | undefined {
  if (!raw.includes("PRIVATE KEY")) return undefined;
  let last: number | undefined;
  for (const match of raw.matchAll(OPEN_KEY)) last = match.index;
  if (last === undefined) return undefined;
  return /-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----/.test(raw.slice(last)) ? undefined : last;
}

function textDelta(index: number, text: string): TextDelta {
  return { type: "text-delta", index, text };
}

function thinkingDelta(index: number, thinking: string): ThinkingDelta {
  return { type: "thinking-delta", index, thinking };
}
