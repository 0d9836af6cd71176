import { sessionMetaLineSchema, type SessionMetaLine } from "../schema/transcript.ts";
import { isRecord } from "./transcript-index.ts";

/** What a session list shows, taken from the first and last bytes of a transcript. */
export interface SessionSummary {
  sessionId: string | undefined;
  cwd: string | undefined;
  title: string | undefined;
  firstPrompt: string | undefined;
  createdAt: string | undefined;
  lastActivityAt: string | undefined;
  /** Conversation lines, exact when the whole file was sampled, else extrapolated from the sample's density. */
  messageEstimate: number;
  forkedFrom: SessionMetaLine["forkedFrom"];
  importedFrom: SessionMetaLine["importedFrom"];
}

export interface HeadAndTailSample {
  /** The file's first bytes, decoded. When `headCoversFile`, the whole file. */
  head: string;
  headCoversFile: boolean;
  /** The file's last bytes, decoded; its first line is partial unless `tailStartsAtZero`. Empty when the head covers the file. */
  tail: string;
  sizeBytes: number;
}

const TITLE_LENGTH = 120;
const PROMPT_LENGTH = 500;

export function summarizeHeadAndTail(sample: HeadAndTailSample): SessionSummary {
  const headLines = sample.head.split("\n");
  if (!sample.headCoversFile) headLines.pop();
  const tailLines = sample.tail === "" ? [] : sample.tail.split("\n").slice(1);

  let meta: SessionMetaLine | undefined;
  let sessionId: string | undefined;
  let cwd: string | undefined;
  let createdAt: string | undefined;
  let firstPrompt: string | undefined;
  let lineTitle: string | undefined;
  let lastActivityAt: string | undefined;
  let sampledBytes = 0;
  let conversationLines = 0;
  const responses = new Set<string>();

  const visit = (text: string): void => {
    if (text.trim() === "") return;
    const line = parseLine(text);
    if (line === undefined) return;
    sampledBytes += text.length + 1;
    if (line.type === "cairn-session" && meta === undefined) {
      const parsed = sessionMetaLineSchema.safeParse(line);
      if (parsed.success) meta = parsed.data;
    }
    if (typeof line.sessionId === "string") sessionId ??= line.sessionId;
    if (typeof line.cwd === "string") cwd ??= line.cwd;
    if (typeof line.timestamp === "string") {
      createdAt ??= line.timestamp;
      lastActivityAt = line.timestamp;
    }
    if (line.type === "summary" && typeof line.summary === "string") lineTitle = line.summary;
    if (line.type === "custom-title" && typeof line.customTitle === "string") lineTitle = line.customTitle;
    if (!isConversationLine(line)) return;
    if (line.type === "assistant" && isRecord(line.message) && typeof line.message.id === "string") {
      if (responses.has(line.message.id)) return;
      responses.add(line.message.id);
    }
    conversationLines++;
    firstPrompt ??= promptText(line);
  };
  for (const text of headLines) visit(text);
  for (const text of tailLines) visit(text);

  const messageEstimate =
    sample.headCoversFile || sampledBytes === 0
      ? conversationLines
      : Math.max(conversationLines, Math.round((sample.sizeBytes * conversationLines) / sampledBytes));
  const promptTitle = firstPrompt === undefined ? undefined : oneLine(firstPrompt, TITLE_LENGTH);
  return {
    sessionId: meta?.sessionId ?? sessionId,
    cwd: meta?.cwd ?? cwd,
    title: meta?.title ?? lineTitle ?? promptTitle,
    firstPrompt: firstPrompt === undefined ? undefined : firstPrompt.slice(0, PROMPT_LENGTH),
    createdAt: meta?.timestamp ?? createdAt,
    lastActivityAt,
    messageEstimate,
    forkedFrom: meta?.forkedFrom,
    importedFrom: meta?.importedFrom,
  };
}

function parseLine(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isConversationLine(line: Record<string, unknown>): boolean {
  return (line.type === "user" || line.type === "assistant" || line.type === "system") && typeof line.uuid === "string" && line.isSidechain !== true;
}

/** The words a person typed: not tool results, resume notes, compact summaries or slash-command echoes. */
function promptText(line: Record<string, unknown>): string | undefined {
  if (line.type !== "user" || line.isMeta === true || line.isCompactSummary === true) return undefined;
  const message = line.message;
  if (!isRecord(message)) return undefined;
  let text: string;
  if (typeof message.content === "string") {
    text = message.content;
  } else if (Array.isArray(message.content)) {
    const blocks = message.content.filter(isRecord);
    if (blocks.some((block) => block.type === "tool_result")) return undefined;
    text = blocks.flatMap((block) => (block.type === "text" && typeof block.text === "string" ? [block.text] : [])).join("\n");
  } else {
    return undefined;
  }
  const trimmed = text.trim();
  if (trimmed === "" || trimmed.startsWith("<command-") || trimmed.startsWith("<local-command")) return undefined;
  return trimmed;
}

function oneLine(text: string, length: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= length ? line : `${line.slice(0, length - 1)}…`;
}
