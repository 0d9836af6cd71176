import { open } from "node:fs/promises";
import { basename } from "node:path";
import { summarizeHeadAndTail, type SessionSummary } from "../session/head-tail.ts";

export interface HeadAndTailOptions {
  headBytes?: number;
  tailBytes?: number;
  signal?: AbortSignal;
}

export interface SessionFileSummary extends Omit<SessionSummary, "sessionId"> {
  /** The file name's id: the session's identity. */
  sessionId: string;
  /** The id written inside the file (differs when lines were copied from another session). */
  recordedSessionId: string | undefined;
  path: string;
  sizeBytes: number;
  mtimeMs: number;
  /** Last line timestamp seen in the tail, else the file's modification time. */
  lastActivityAt: string;
}

const DEFAULT_HEAD = 64 * 1024;
const DEFAULT_TAIL = 64 * 1024;
/** Claude Code files may open with large request lines; look further for the first prompt, once. */
const HEAD_RETRY_FACTOR = 8;

/**
 * A session's list entry from its first and last bytes only: two positioned reads, whatever the
 * file's size. Titles come from the meta line, a Claude Code `summary`/`custom-title` line, or
 * the first prompt.
 */
export async function readHeadAndTail(path: string, options: HeadAndTailOptions = {}): Promise<SessionFileSummary> {
  options.signal?.throwIfAborted();
  const headBytes = options.headBytes ?? DEFAULT_HEAD;
  const tailBytes = options.tailBytes ?? DEFAULT_TAIL;
  const file = await open(path, "r");
  try {
    const stat = await file.stat();
    const size = stat.size;
    const readRange = async (start: number, length: number): Promise<string> => {
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await file.read(buffer, 0, length, start);
      return buffer.toString("utf8", 0, bytesRead);
    };
    const sample = async (head: number) => {
      const headCoversFile = size <= head + tailBytes;
      return summarizeHeadAndTail({
        head: await readRange(0, headCoversFile ? size : head),
        headCoversFile,
        tail: headCoversFile ? "" : await readRange(size - tailBytes, tailBytes),
        sizeBytes: size,
      });
    };
    let summary = await sample(headBytes);
    if (summary.firstPrompt === undefined && size > headBytes + tailBytes) {
      options.signal?.throwIfAborted();
      summary = await sample(headBytes * HEAD_RETRY_FACTOR);
    }
    return {
      ...summary,
      // The file name is the session's identity; lines copied from another session may carry its id.
      sessionId: basename(path, ".jsonl"),
      recordedSessionId: summary.sessionId,
      path,
      sizeBytes: size,
      mtimeMs: stat.mtimeMs,
      lastActivityAt: summary.lastActivityAt ?? stat.mtime.toISOString(),
    };
  } finally {
    await file.close();
  }
}
