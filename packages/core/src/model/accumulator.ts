import type { ContentBlock } from "../schema/content.ts";
import type { Usage } from "../schema/usage.ts";
import type { ModelStreamPart } from "./port.ts";

type OpenBlock =
  | { kind: "text"; parts: string[] }
  | { kind: "thinking"; parts: string[]; signature: string }
  | { kind: "tool_use"; id: string; name: string; json: string[]; extra: Record<string, unknown> }
  | { kind: "other"; block: ContentBlock };

export type AssembledMessage = {
  id: string;
  model: string;
  content: ContentBlock[];
  stopReason: string | null;
  stopSequence: string | null;
  usage: Usage;
  requestId?: string;
};

/**
 * Assembles the final message beside the deltas: the UI consumes deltas, history keeps this.
 * Strings are collected as parts and joined once per block, so long streams stay linear.
 */
export class MessageAccumulator {
  id = "";
  model = "";
  requestId: string | undefined;
  started = false;
  private usage: Usage = { input_tokens: 0, output_tokens: 0 };
  private stopReason: string | null = null;
  private stopSequence: string | null = null;
  private readonly open = new Map<number, OpenBlock>();
  private readonly done = new Map<number, ContentBlock>();

  apply(part: ModelStreamPart): void {
    switch (part.type) {
      case "message-start":
        this.started = true;
        this.id = part.id;
        this.model = part.model;
        this.requestId = part.requestId;
        this.usage = { ...part.usage };
        return;
      case "block-start":
        this.open.set(part.index, openBlock(part.block));
        return;
      case "text-delta": {
        const block = this.open.get(part.index);
        if (block?.kind === "text") block.parts.push(part.text);
        return;
      }
      case "thinking-delta": {
        const block = this.open.get(part.index);
        if (block?.kind === "thinking") block.parts.push(part.thinking);
        return;
      }
      case "signature-delta": {
        const block = this.open.get(part.index);
        if (block?.kind === "thinking") block.signature += part.signature;
        return;
      }
      case "tool-input-delta": {
        const block = this.open.get(part.index);
        if (block?.kind === "tool_use") block.json.push(part.partialJson);
        return;
      }
      case "block-stop": {
        const block = this.open.get(part.index);
        if (!block) return;
        this.open.delete(part.index);
        this.done.set(part.index, closeBlock(block));
        return;
      }
      case "message-delta":
        this.stopReason = part.stopReason;
        this.stopSequence = part.stopSequence;
        this.usage = { ...this.usage, ...definedOnly(part.usage) };
        return;
      case "message-stop":
        return;
    }
  }

  /** A block once its `block-stop` arrived. */
  completedBlock(index: number): ContentBlock | undefined {
    return this.done.get(index);
  }

  hasContent(): boolean {
    return this.done.size > 0 || [...this.open.values()].some((block) => block.kind === "text" && block.parts.length > 0);
  }

  /** The whole message, once the stream ended normally. */
  finish(): AssembledMessage {
    return this.snapshot(false);
  }

  /**
   * What survives a cut stream: finished blocks (whole tool calls included), plus text that was mid-way
   * (text is valid cut anywhere). Unfinished tool calls and unsigned thinking are dropped: the API would reject them.
   */
  partial(): AssembledMessage {
    return this.snapshot(true);
  }

  private snapshot(cut: boolean): AssembledMessage {
    const indexes = [...new Set([...this.done.keys(), ...(cut ? this.open.keys() : [])])].sort((a, b) => a - b);
    const content: ContentBlock[] = [];
    for (const index of indexes) {
      const finished = this.done.get(index);
      if (finished) {
        content.push(finished);
        continue;
      }
      const open = this.open.get(index);
      if (open?.kind === "text" && open.parts.length > 0) content.push({ type: "text", text: open.parts.join("") });
    }
    return {
      id: this.id,
      model: this.model,
      content: cut ? content.filter((block) => !(block.type === "thinking" && !block.signature)) : content,
      stopReason: this.stopReason,
      stopSequence: this.stopSequence,
      usage: this.usage,
      ...(this.requestId ? { requestId: this.requestId } : {}),
    };
  }
}

function openBlock(block: ContentBlock): OpenBlock {
  switch (block.type) {
    case "text":
      return { kind: "text", parts: block.text ? [block.text] : [] };
    case "thinking":
      return { kind: "thinking", parts: block.thinking ? [block.thinking] : [], signature: block.signature ?? "" };
    case "tool_use": {
      const { type: _type, id, name, input: _input, ...extra } = block;
      return { kind: "tool_use", id, name, json: [], extra };
    }
    default:
      return { kind: "other", block };
  }
}

function closeBlock(block: OpenBlock): ContentBlock {
  switch (block.kind) {
    case "text":
      return { type: "text", text: block.parts.join("") };
    case "thinking":
      return { type: "thinking", thinking: block.parts.join(""), signature: block.signature };
    case "tool_use":
      return { ...block.extra, type: "tool_use", id: block.id, name: block.name, input: parseToolInput(block.json.join("")) };
    case "other":
      return block.block;
  }
}

/** Malformed JSON stays a string: input validation then tells the model what was wrong. */
function parseToolInput(json: string): unknown {
  if (json.trim() === "") return {};
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

function definedOnly(usage: Partial<Usage>): Partial<Usage> {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== undefined && value !== null));
}
