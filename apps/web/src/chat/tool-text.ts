/** Tool result content as JSON delivers it: a string or a list of blocks. */
type ResultContent = string | readonly { type: string; [key: string]: unknown }[];

/** A tool result as plain text: text blocks joined, other blocks named. Never HTML. */
export function toolResultText(content: ResultContent | undefined): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content
    .map((block) => {
      if (block.type === "text" && typeof block.text === "string") return block.text;
      if (block.type === "image") return "[image]";
      return `[${block.type}]`;
    })
    .join("\n");
}

/** Progress data from a tool as text: Bash sends `{ chunk }`, others arbitrary JSON. */
export function progressText(data: unknown): string {
  if (typeof data === "string") return data;
  if (data && typeof data === "object") {
    const record = data as Record<string, unknown>;
    if (typeof record.chunk === "string") return record.chunk;
    if (typeof record.text === "string") return `${record.text}\n`;
    if (typeof record.message === "string") return `${record.message}\n`;
  }
  return `${safeJson(data)}\n`;
}

export function safeJson(value: unknown, indent = 0): string {
  try {
    return JSON.stringify(value, null, indent) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Parses a streamed tool input once it is whole; partial JSON stays undefined. */
export function tryParseJson(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
