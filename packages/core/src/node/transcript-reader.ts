import { open, type FileHandle } from "node:fs/promises";
import { createInterface } from "node:readline";
import type { ConversationMessage } from "../schema/messages.ts";
import type { CheckpointLine, SessionMetaLine } from "../schema/transcript.ts";
import { ConversationAssembler } from "../session/assemble.ts";
import { TranscriptIndex, type LoadReport, type LoadScope } from "../session/transcript-index.ts";

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
 * The tolerant loader. Pass one streams the file line by line (readline over a read stream) into a
 * compact index, in memory that does not grow with message sizes; pass two reads back, by byte
 * offset, only the lines the planned conversation needs. Never throws on bad content: torn and
 * malformed lines are skipped and counted in `report`.
 */
export async function loadTranscript(path: string, options: LoadTranscriptOptions = {}): Promise<LoadedTranscript> {
  const index = await indexTranscriptFile(path, options.signal);
  const nodes = index.plan({ scope: options.scope ?? "all", ...(options.leafUuid ? { leafUuid: options.leafUuid } : {}) });
  const assembler = await readPlannedLines(path, index, nodes, options.signal);
  index.report.invalidMessages = assembler.invalidMessages;
  return {
    path,
    messages: assembler.finish(),
    meta: index.meta,
    title: index.meta?.title ?? index.titleFromLines,
    checkpoints: index.checkpoints,
    report: index.report,
  };
}

/** Pass one alone: every line once, into the index. */
export async function indexTranscriptFile(path: string, signal?: AbortSignal): Promise<TranscriptIndex> {
  signal?.throwIfAborted();
  const file = await open(path, "r");
  let index: TranscriptIndex;
  let endsWithNewline = false;
  try {
    const { size } = await file.stat();
    index = new TranscriptIndex({ fileSize: size });
    if (size > 0) {
      const last = Buffer.alloc(1);
      await file.read(last, 0, 1, size - 1);
      endsWithNewline = last[0] === 0x0a;
    }
  } catch (error) {
    await file.close();
    throw error;
  }
  await forEachLine(file, signal, (line, offset, byteLength) => index.addLine(line, offset, byteLength));
  index.end({ endsWithNewline });
  return index;
}

type LineVisitor = (line: string, byteOffset: number, byteLength: number) => boolean | void;

/** Streams `file` (and closes it). The visitor returns `true` to stop early. */
async function forEachLine(file: FileHandle, signal: AbortSignal | undefined, visit: LineVisitor): Promise<void> {
  const input = file.createReadStream({ encoding: "utf8" });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  const onAbort = (): void => {
    input.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  let offset = 0;
  try {
    for await (const line of lines) {
      const byteLength = Buffer.byteLength(line, "utf8");
      if (visit(line, offset, byteLength) === true) break;
      offset += byteLength + 1;
    }
    signal?.throwIfAborted();
  } finally {
    signal?.removeEventListener("abort", onAbort);
    lines.close();
    input.destroy();
    await file.close().catch(() => undefined);
  }
}

class OffsetMismatch extends Error {}

async function readPlannedLines(
  path: string,
  index: TranscriptIndex,
  nodes: Int32Array,
  signal: AbortSignal | undefined,
): Promise<ConversationAssembler> {
  if (nodes.length === 0) return new ConversationAssembler();
  try {
    return await readByOffset(path, index, nodes, signal);
  } catch (error) {
    if (!(error instanceof OffsetMismatch)) throw error;
    // Offsets are exact for "\n"-terminated UTF-8; a file with "\r\n" endings or invalid bytes is re-streamed.
    return readByUuid(path, index, nodes, signal);
  }
}

async function readByOffset(
  path: string,
  index: TranscriptIndex,
  nodes: Int32Array,
  signal: AbortSignal | undefined,
): Promise<ConversationAssembler> {
  const assembler = new ConversationAssembler();
  const file = await open(path, "r");
  try {
    let first = 0;
    while (first < nodes.length) {
      signal?.throwIfAborted();
      const rangeStart = index.offsetOf(nodes[first]!);
      let last = first;
      let rangeEnd = rangeStart + index.byteLengthOf(nodes[first]!);
      while (last + 1 < nodes.length) {
        const next = nodes[last + 1]!;
        const nextEnd = index.offsetOf(next) + index.byteLengthOf(next);
        if (index.offsetOf(next) - rangeEnd > READ_GAP || nextEnd - rangeStart > READ_RANGE) break;
        last++;
        rangeEnd = nextEnd;
      }
      const buffer = Buffer.allocUnsafe(rangeEnd - rangeStart);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, rangeStart);
      if (bytesRead < buffer.length) throw new OffsetMismatch();
      for (let at = first; at <= last; at++) {
        const node = nodes[at]!;
        const start = index.offsetOf(node) - rangeStart;
        const value = parseOrUndefined(buffer.toString("utf8", start, start + index.byteLengthOf(node)));
        if (!isIndexedLine(index, node, value)) throw new OffsetMismatch();
        assembler.add(value, index.groupOf(node));
      }
      first = last + 1;
    }
  } finally {
    await file.close();
  }
  return assembler;
}

async function readByUuid(
  path: string,
  index: TranscriptIndex,
  nodes: Int32Array,
  signal: AbortSignal | undefined,
): Promise<ConversationAssembler> {
  const wanted = new Uint8Array(index.nodeCount);
  for (const node of nodes) wanted[node] = 1;
  const assembler = new ConversationAssembler();
  let remaining = nodes.length;
  await forEachLine(await open(path, "r"), signal, (line) => {
    const value = parseOrUndefined(line);
    const uuid = typeof value === "object" && value !== null ? (value as { uuid?: unknown }).uuid : undefined;
    const node = typeof uuid === "string" ? index.nodeOf(uuid) : -1;
    if (node < 0 || wanted[node] !== 1) return false;
    wanted[node] = 0;
    assembler.add(value, index.groupOf(node));
    return --remaining === 0;
  });
  return assembler;
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
