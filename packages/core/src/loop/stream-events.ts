import type { CallModelEvent } from "../model/call-model.ts";
import type { AgentEvent } from "../schema/events.ts";

/** The model layer's events as the loop shows them; `null` for parts only the assembler needs. */
export function mapModelEvent(event: CallModelEvent): AgentEvent | null {
  switch (event.type) {
    case "retry":
      return event;
    case "model-fallback":
      return event;
    case "discard":
      return { type: "tombstone", messageId: event.messageId, reason: event.reason };
    case "part": {
      const { part, messageId } = event;
      switch (part.type) {
        case "text-delta":
          return { type: "text-delta", messageId, index: part.index, text: part.text };
        case "thinking-delta":
          return { type: "thinking-delta", messageId, index: part.index, thinking: part.thinking };
        case "input-json-delta":
          return { type: "tool-input-delta", messageId, index: part.index, partialJson: part.partialJson };
        case "block-start":
          return {
            type: "block-start",
            messageId,
            index: part.index,
            blockType: part.block.type,
            ...(part.block.type === "tool_use" ? { toolUseId: part.block.id, name: part.block.name } : {}),
          };
        case "block-stop":
          return { type: "block-stop", messageId, index: part.index };
        default:
          return null;
      }
    }
  }
}
