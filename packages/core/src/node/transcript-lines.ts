import { basename } from "node:path";
import { transcriptLineSchema, type TranscriptLine } from "../schema/transcript.ts";
import { forEachLine, openTranscriptFile } from "./transcript-reader.ts";

export interface TranscriptLinesReport {
  /** Non-blank lines seen. */
  lines: number;
  /** Lines that are not JSON objects, or known line types that fail their schema. */
  malformedLines: number;
  /** The last line was cut short (no newline after it and not whole JSON) and was skipped. */
  tornTail: boolean;
  /** Well-formed lines of types Cairn does not model (`attachment`, `api-request`, …), skipped. */
  unknownLines: number;
}

const KNOWN_TYPES = new Set(["user", "assistant", "system", "tombstone", "cairn-session", "cairn-checkpoint", "cairn-hooks"]);

/**
 * Every line of a transcript as written, in file order, tombstones and all: what a timeline draws
 * (the conversation loader, by contrast, rebuilds one chain and drops what tombstones name). Uses
 * the loader's line streaming; never throws on bad content: damaged lines are skipped and counted.
 * `from` and `upTo` (byte offsets) read a part: the lines that start at or after `from` and before `upTo`.
 */
export async function readTranscriptLines(
  path: string,
  options: { signal?: AbortSignal; sessionId?: string; from?: number; upTo?: number } = {},
): Promise<{ lines: TranscriptLine[]; report: TranscriptLinesReport; size: number; endOffset: number }> {
  // Hand-written and some older lines carry no sessionId: they belong to the file's session.
  const sessionId = options.sessionId ?? basename(path, ".jsonl");
  options.signal?.throwIfAborted();
  const { file, size, endsWithNewline } = await openTranscriptFile(path);
  const from = Math.min(options.from ?? 0, size);
  // Where the next read can start: after the last line that ended with a newline.
  let endOffset = from;
  const lines: TranscriptLine[] = [];
  const report: TranscriptLinesReport = { lines: 0, malformedLines: 0, tornTail: false, unknownLines: 0 };
  let lastWasBad = false;
  let stoppedEarly = false;
  await forEachLine(
    file,
    options.signal,
    (text, offset, byteLength) => {
      // Only lines that start before `upTo`: a first part of a large file.
      if (options.upTo !== undefined && offset >= options.upTo) {
        stoppedEarly = true;
        return true;
      }
      if (offset + byteLength < size || endsWithNewline) endOffset = Math.min(size, offset + byteLength + 1);
      visitLine(text);
    },
    from,
  );
  function visitLine(text: string): void {
    const outcome = addTranscriptLine(text, sessionId, lines, report);
    if (outcome !== "blank") lastWasBad = outcome === "not-json";
  }
  // A bad last line with no newline after it is a write cut short by a crash, not a malformed line.
  if (lastWasBad && !endsWithNewline && !stoppedEarly) {
    report.malformedLines--;
    report.tornTail = true;
  }
  return { lines, report, size, endOffset };
}

/**
 * One line's text (a JSONL line, or a row of a database-kept transcript) added to `lines` when it is a line Cairn
 * models, counted in `report` either way, as `readTranscriptLines` counts it. Says what the text was.
 */
export function addTranscriptLine(
  text: string,
  sessionId: string,
  lines: TranscriptLine[],
  report: TranscriptLinesReport,
): "blank" | "not-json" | "unknown" | "malformed" | "added" {
  if (text.trim() === "") return "blank";
  report.lines++;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    report.malformedLines++;
    return "not-json";
  }
  const type = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as { type?: unknown }).type : undefined;
  if (typeof type === "string" && !KNOWN_TYPES.has(type)) {
    report.unknownLines++;
    return "unknown";
  }
  const record = value as Record<string, unknown>;
  const parsed = transcriptLineSchema.safeParse(typeof record.sessionId === "string" ? record : { ...record, sessionId });
  if (!parsed.success) {
    report.malformedLines++;
    return "malformed";
  }
  lines.push(parsed.data);
  return "added";
}
