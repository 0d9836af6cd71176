import type { CallToolResult, ContentBlock as McpContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { ImageBlock, TextBlock, ToolResultContent } from "../schema/content.ts";

/** Image types the Messages API accepts in a tool result. */
const API_IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

type ResultBlock = TextBlock | ImageBlock;

function imageBlock(data: string, mimeType: string): ImageBlock {
  return { type: "image", source: { type: "base64", media_type: mimeType, data } };
}

/** Approximate decoded size of base64 data, for notes about binary content that is not passed on. */
function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4);
}

/**
 * One MCP content block as the model can read it: text and supported images pass through; an
 * embedded resource becomes its text (or its image); binary data the API cannot take becomes a
 * short note, so the model knows something was returned.
 */
export function mcpContentToBlocks(block: McpContentBlock, serverName: string): ResultBlock[] {
  switch (block.type) {
    case "text":
      return [{ type: "text", text: block.text }];
    case "image":
      if (API_IMAGE_TYPES.has(block.mimeType)) return [imageBlock(block.data, block.mimeType)];
      return [{ type: "text", text: `[${serverName} returned an image of type ${block.mimeType} (${base64Bytes(block.data)} bytes), which cannot be shown]` }];
    case "audio":
      return [
        { type: "text", text: `[${serverName} returned audio of type ${block.mimeType} (${base64Bytes(block.data)} bytes), which cannot be played here]` },
      ];
    case "resource": {
      const resource = block.resource;
      const prefix = `[Resource from ${serverName} at ${resource.uri}]`;
      if ("text" in resource && typeof resource.text === "string") return [{ type: "text", text: `${prefix}\n${resource.text}` }];
      const blob = (resource as { blob: string }).blob;
      const mimeType = resource.mimeType ?? "application/octet-stream";
      if (API_IMAGE_TYPES.has(mimeType)) return [{ type: "text", text: prefix }, imageBlock(blob, mimeType)];
      return [{ type: "text", text: `${prefix} binary content of type ${mimeType} (${base64Bytes(blob)} bytes)` }];
    }
    case "resource_link": {
      const details = [block.description, block.mimeType].filter((part): part is string => typeof part === "string" && part.length > 0);
      return [{ type: "text", text: `[Resource link: ${block.name}] ${block.uri}${details.length > 0 ? ` (${details.join("; ")})` : ""}` }];
    }
    default:
      return [{ type: "text", text: `[${serverName} returned content of an unknown type]` }];
  }
}

/**
 * A `tools/call` result as tool_result content. Text-only results become one string (as a text
 * tool result reads best); anything with an image stays a block list. A result with no content but
 * `structuredContent` shows that as JSON.
 */
export function mcpResultToContent(result: CallToolResult, serverName: string): ToolResultContent {
  const blocks = result.content.flatMap((block) => mcpContentToBlocks(block, serverName));
  if (blocks.length === 0) {
    if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
    return result.isError ? `${serverName} reported an error without details.` : "(no content)";
  }
  if (blocks.every((block): block is TextBlock => block.type === "text")) return blocks.map((block) => block.text).join("\n");
  return blocks;
}
