import { open, type FileHandle } from "node:fs/promises";
import type { ConversationMessage } from "../schema/messages.ts";
import { checkpointLineSchema, type CheckpointLine, type SessionMetaLine } from "../schema/transcript.ts";
import { ConversationAssembler } from "../session/assemble.ts";
import { TranscriptIndex, type ConversationPlan, type LoadReport, type LoadScope } from "../session/transcript-index.ts";

export interface LoadTranscriptOptions {
  /** `"since-last-compact"` reads back only what a resume needs; the index still covers the whole file. */
  scope?: LoadScope;
  /** Rebuild the conversation ending at this line instead of the last appended message. */
  leafUuid?: string;
  signal?: AbortSignal;
}

export interface LoadedTranscript {
  path: string;
  messages: ConversationMessage[];
  meta: SessionMetaLine | undefined;
  /** The session's title from its meta line or a Claude Code `summary`/`custom-title` line. */
  title: string | undefined;
  checkpoints: CheckpointLine[];
  /** Problems found, reported once for the whole file. */
  report: LoadReport;
}

const READ_GAP = 64 * 1024;
const READ_RANGE = 4 * 1024 * 1024;

/**
 * The tolerant loader. Pass one streams the file line by line (large chunks cut at newlines) into a
 * compact index, in memory that does not grow with message sizes; pass two reads back, by byte
 * offset, only the lines the planned conversation needs. Never throws on bad content: torn and
 * malformed lines are skipped and counted in `report`.
 */
export async function loadTranscript(path: string, options: LoadTranscriptOptions = {}): Promise<LoadedTranscript> {
  const index = await indexTranscriptFile(path, options.signal);
  const plan = index.plan({ scope: options.scope ?? "all", ...(options.leafUuid ? { leafUuid: options.leafUuid } : {}) });
  const { assembler, checkpoints } = await readPlannedLines(path, index, plan, options.signal);
  index.report.invalidMessages = assembler.invalidMessages;
  return {
    path,
    messages: assembler.finish(),
    meta: index.meta,
    title: index.meta?.title ?? index.titleFromLines,
    checkpoints,
    report: index.report,
  };
}

/** Opens a transcript for reading, with its size and whether its last line is complete (a torn tail is not). */
export async function openTranscriptFile(path: string): Promise<{ file: FileHandle; size: number; endsWithNewline: boolean }> {
  const file = await open(path, "r");
  try {
    const { size } = await file.stat();
    let endsWithNewline = true;
    if (size > 0) {
      const last = Buffer.alloc(1);
      await file.read(last, 0, 1, size - 1);
      endsWithNewline = last[0] === 0x0a;
    }
    return { file, size, endsWithNewline };
  } catch (error) {
    await file.close();
    throw error;
  }
}

/** Pass one alone: every line once, into the index. */
export async function indexTranscriptFile(path: string, signal?: AbortSignal): Promise<TranscriptIndex> {
  signal?.throwIfAborted();
  const { file, size, endsWithNewline } = await openTranscriptFile(path);
  const index = new TranscriptIndex({ fileSize: size });
  await forEachLine(file, signal, (line, offset, byteLength) => index.addLine(line, offset, byteLength));
  index.end({ endsWithNewline });
  return index;
}

export type LineVisitor = (line: string, byteOffset: number, byteLength: number) => boolean | void;

/** How much of a transcript one read takes in (grown for a line longer than this). */
const LINE_CHUNK = 1024 * 1024;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Streams `file` line by line (and closes it). Reads large chunks and cuts lines at "\n" in the bytes, so
 * offsets are exact and no line is decoded twice; a "\r" before the "\n" is left out of the text but
 * counted in `byteLength`, so `offset + byteLength + 1` is always where the next line starts. A last line
 * without a newline is visited too. The visitor returns `true` to stop early.
 */
export async function forEachLine(file: FileHandle, signal: AbortSignal | undefined, visit: LineVisitor, start = 0): Promise<void> {
  try {
    let buffer = Buffer.allocUnsafe(LINE_CHUNK);
    // Bytes in `buffer` not yet cut into lines, and the file offset of the first of them.
    let filled = 0;
    let offset = start;
    let position = start;
    for (;;) {
      signal?.throwIfAborted();
      if (filled === buffer.length) {
        const larger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(larger, 0, 0, filled);
        buffer = larger;
      }
      const { bytesRead } = await file.read(buffer, filled, buffer.length - filled, position);
      position += bytesRead;
      if (bytesRead === 0) {
        if (filled > 0) visitLine(buffer, 0, filled, offset, visit);
        signal?.throwIfAborted();
        return;
      }
      filled += bytesRead;
      let lineStart = 0;
      for (;;) {
        const newline = buffer.indexOf(NEWLINE, lineStart);
        if (newline === -1 || newline >= filled) break;
        if (visitLine(buffer, lineStart, newline, offset, visit) === true) return;
        offset += newline - lineStart + 1;
        lineStart = newline + 1;
      }
      buffer.copy(buffer, 0, lineStart, filled);
      filled -= lineStart;
    }
  } finally {
    await file.close().catch(() => undefined);
  }
}

function visitLine(buffer: Buffer, from: number, to: number, offset: number, visit: LineVisitor): boolean | void {
  const textEnd = to > from && buffer[to - 1] === CARRIAGE_RETURN ? to - 1 : to;
  return visit(buffer.toString("utf8", from, textEnd), offset, to - from);
}

class OffsetMismatch extends Error {}

interface PlannedLines {
  assembler: ConversationAssembler;
  checkpoints: CheckpointLine[];
}

async function readPlannedLines(path: string, index: TranscriptIndex, plan: ConversationPlan, signal: AbortSignal | undefined): Promise<PlannedLines> {
  try {
    return await readByOffset(path, index, plan, signal);
  } catch (error) {
    if (!(error instanceof OffsetMismatch)) throw error;
    // Offsets are exact for "\n"-terminated UTF-8; a file with "\r\n" endings or invalid bytes is re-streamed.
    return readByIdentity(path, index, plan, signal);
  }
}

async function readByOffset(path: string, index: TranscriptIndex, plan: ConversationPlan, signal: AbortSignal | undefined): Promise<PlannedLines> {
  const assembler = new ConversationAssembler(plan.droppedResponseIds);
  const checkpoints: CheckpointLine[] = [];
  if (plan.nodes.length === 0 && plan.checkpoints.length === 0) return { assembler, checkpoints };
  const file = await open(path, "r");
  try {
    await readRanges(
      file,
      plan.nodes.length,
      (at) => index.offsetOf(plan.nodes[at]!),
      (at) => index.byteLengthOf(plan.nodes[at]!),
      signal,
      (at, text) => {
        const node = plan.nodes[at]!;
        const value = parseOrUndefined(text);
        if (!isIndexedLine(index, node, value)) throw new OffsetMismatch();
        assembler.add(value, index.groupOf(node));
      },
    );
    const { checkpoints: planned } = plan;
    await readRanges(
      file,
      planned.length,
      (at) => index.checkpointOffsetOf(planned[at]!),
      (at) => index.checkpointByteLengthOf(planned[at]!),
      signal,
      (_at, text) => {
        const parsed = checkpointLineSchema.safeParse(parseOrUndefined(text));
        if (!parsed.success) throw new OffsetMismatch();
        checkpoints.push(parsed.data);
      },
    );
  } finally {
    await file.close();
  }
  return { assembler, checkpoints };
}

/** Reads `count` lines located by offset and length (ascending), coalescing nearby ones into one read. */
async function readRanges(
  file: FileHandle,
  count: number,
  offsetOf: (at: number) => number,
  lengthOf: (at: number) => number,
  signal: AbortSignal | undefined,
  visit: (at: number, text: string) => void,
): Promise<void> {
  let first = 0;
  while (first < count) {
    signal?.throwIfAborted();
    const rangeStart = offsetOf(first);
    let last = first;
    let rangeEnd = rangeStart + lengthOf(first);
    while (last + 1 < count) {
      const nextStart = offsetOf(last + 1);
      const nextEnd = nextStart + lengthOf(last + 1);
      if (nextStart - rangeEnd > READ_GAP || nextEnd - rangeStart > READ_RANGE) break;
      last++;
      rangeEnd = nextEnd;
    }
    const buffer = Buffer.allocUnsafe(rangeEnd - rangeStart);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, rangeStart);
    if (bytesRead < buffer.length) throw new OffsetMismatch();
    for (let at = first; at <= last; at++) {
      const start = offsetOf(at) - rangeStart;
      visit(at, buffer.toString("utf8", start, start + lengthOf(at)));
    }
    first = last + 1;
  }
}

/** The slow path: stream the file again and pick the planned lines by their uuid (checkpoints by their message's). */
async function readByIdentity(path: string, index: TranscriptIndex, plan: ConversationPlan, signal: AbortSignal | undefined): Promise<PlannedLines> {
  const wanted = new Uint8Array(index.nodeCount);
  for (const node of plan.nodes) wanted[node] = 1;
  const planned = wanted.slice();
  const assembler = new ConversationAssembler(plan.droppedResponseIds);
  const checkpoints: CheckpointLine[] = [];
  await forEachLine(await open(path, "r"), signal, (line) => {
    const value = parseOrUndefined(line);
    if (typeof value !== "object" || value === null) return;
    const record = value as { uuid?: unknown; type?: unknown; messageUuid?: unknown };
    if (record.type === "cairn-checkpoint" && plan.checkpoints.length > 0) {
      const node = typeof record.messageUuid === "string" ? index.nodeOf(record.messageUuid) : -1;
      const parsed = checkpointLineSchema.safeParse(value);
      if (node >= 0 && planned[node] === 1 && parsed.success) checkpoints.push(parsed.data);
      return;
    }
    const node = typeof record.uuid === "string" ? index.nodeOf(record.uuid) : -1;
    if (node < 0 || wanted[node] !== 1) return;
    wanted[node] = 0;
    assembler.add(value, index.groupOf(node));
  });
  return { assembler, checkpoints };
}

function isIndexedLine(index: TranscriptIndex, node: number, value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && index.isNode(node, (value as { uuid?: unknown }).uuid);
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
