import type { CallModelEvent } from "../model/call-model.ts";
import type { AgentEvent } from "../schema/events.ts";

/**
 * The model layer's events as the loop shows them; `null` for parts only the assembler needs.
 * Deltas are passed on as they are (same shape), which keeps the per-delta path allocation-free.
 */
export function mapModelEvent(event: CallModelEvent): AgentEvent | null {
  switch (event.type) {
    case "text-delta":
    case "thinking-delta":
    case "tool-input-delta":
    case "block-stop":
    case "retry":
    case "model-fallback":
      return event;
    case "discard":
      return { type: "tombstone", messageId: event.messageId, reason: event.reason };
    case "message-start":
      return { type: "message-start", messageId: event.id, model: event.model };
    case "block-start":
      return {
        type: "block-start",
        index: event.index,
        blockType: event.block.type,
        ...(event.block.type === "tool_use" ? { toolUseId: event.block.id, name: event.block.name } : {}),
      };
    case "signature-delta":
    case "message-delta":
    case "message-stop":
      return null;
  }
}
