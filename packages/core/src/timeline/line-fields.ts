/**
 * Defensive readers for transcript lines. A timeline source may come from a damaged file, a share
 * or an exported HTML file, so nothing about a line's shape is trusted: every field is checked.
 */

export type LooseRecord = Record<string, unknown>;

export function asRecord(value: unknown): LooseRecord | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as LooseRecord) : undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function asNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Epoch ms of an ISO timestamp, or undefined. */
export function timestampMs(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const parsed = Date.parse(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** The text a message content (string or blocks) or a tool_result content holds. */
export function contentText(content: unknown, types: ReadonlySet<string> = TEXT_ONLY): string {
  if (typeof content === "string") return content;
  let text = "";
  for (const item of asArray(content)) {
    const block = asRecord(item);
    if (!block) continue;
    const type = block.type;
    let piece: string | undefined;
    if (type === "text" && types.has("text")) piece = asString(block.text);
    else if (type === "thinking" && types.has("thinking")) piece = asString(block.thinking);
    else if (type === "image" && types.has("image")) piece = "[image]";
    else if (type === "tool_result" && types.has("tool_result")) piece = contentText(block.content, TOOL_OUTPUT);
    if (piece === undefined || piece === "") continue;
    text = text === "" ? piece : `${text}\n${piece}`;
  }
  return text;
}

/** How long a one-line summary in the timeline may be. */
export const SUMMARY_CHARS = 140;

export const TEXT_ONLY: ReadonlySet<string> = new Set(["text"]);
export const THINKING_ONLY: ReadonlySet<string> = new Set(["thinking"]);
export const TOOL_OUTPUT: ReadonlySet<string> = new Set(["text", "image"]);

/** `s` cut to `max` characters, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** One line of text: whitespace runs collapsed, cut to `max`. */
export function oneLine(text: string, max: number): string {
  const head = text.length > max * 4 ? text.slice(0, max * 4) : text;
  // Most summaries are already one clean line: skip the replace (and its copy) for them.
  const collapsed = SPACE_RUN.test(head) ? head.replace(/\s+/g, " ").trim() : head;
  return clip(collapsed, max);
}

const SPACE_RUN = /\s\s|[\t\n\r\f\v]|^\s|\s$/;

/** JSON of a tool input, bounded: for search text and list summaries. */
export function inputText(input: unknown, max: number): string {
  if (input === undefined) return "";
  if (typeof input === "string") return clip(input, max);
  try {
    return clip(JSON.stringify(input) ?? "", max);
  } catch {
    return "";
  }
}

/** The field of a tool input that says what the call is about: a path, a command, a pattern. */
export function toolSubject(input: unknown): string {
  const fields = asRecord(input);
  if (!fields) return "";
  for (const key of ["file_path", "command", "pattern", "path", "url", "description", "query", "prompt"]) {
    const value = asString(fields[key]);
    if (value) return value;
  }
  return "";
}
