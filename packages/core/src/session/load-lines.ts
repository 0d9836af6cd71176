import type { ConversationMessage } from "../schema/messages.ts";
import { checkpointLineSchema, type CheckpointLine, type SessionMetaLine } from "../schema/transcript.ts";
import { ConversationAssembler } from "./assemble.ts";
import { TranscriptIndex, type LoadReport, type LoadScope } from "./transcript-index.ts";

/** A transcript read back: what the tolerant file loader gives, for lines held anywhere (a database, memory). */
export interface TranscriptContents {
  messages: ConversationMessage[];
  meta: SessionMetaLine | undefined;
  title: string | undefined;
  checkpoints: CheckpointLine[];
  report: LoadReport;
}

/**
 * The tolerant loader over lines already in memory, in append order: the same index, plan and
 * assembler as the JSONL file loader, with a line's position standing in for its byte offset. A bad
 * last line counts as torn (it may be a half-written append), any other bad line as malformed.
 */
export function loadTranscriptLines(lines: readonly string[], options: { scope?: LoadScope; leafUuid?: string } = {}): TranscriptContents {
  const index = new TranscriptIndex({ fileSize: lines.length * 512 });
  lines.forEach((line, position) => index.addLine(line, position, 1));
  index.end({ endsWithNewline: false });
  const plan = index.plan({ scope: options.scope ?? "all", ...(options.leafUuid ? { leafUuid: options.leafUuid } : {}) });
  const assembler = new ConversationAssembler(plan.droppedResponseIds);
  for (const node of plan.nodes) {
    const value = parse(lines[index.offsetOf(node)]);
    if (typeof value === "object" && value !== null && index.isNode(node, (value as { uuid?: unknown }).uuid)) assembler.add(value, index.groupOf(node));
  }
  const checkpoints: CheckpointLine[] = [];
  for (const checkpoint of plan.checkpoints) {
    const parsed = checkpointLineSchema.safeParse(parse(lines[index.checkpointOffsetOf(checkpoint)]));
    if (parsed.success) checkpoints.push(parsed.data);
  }
  index.report.invalidMessages = assembler.invalidMessages;
  return { messages: assembler.finish(), meta: index.meta, title: index.meta?.title ?? index.titleFromLines, checkpoints, report: index.report };
}

function parse(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
