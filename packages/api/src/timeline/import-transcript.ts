import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { indexTranscriptFile, readClaudeCodeTranscript } from "@cairn/core/node";
import { ApiError } from "../router/errors.ts";
import { createJsonlSessionStore } from "../session-store/jsonl-session-store.ts";
import type { SessionStore } from "../session-store/session-store.ts";
import type { TimelineStoreLocation } from "./source.ts";
import { MAX_TRANSCRIPT_CHARS, type ImportedTranscript } from "./timeline-port.ts";

/** Where an import goes: the workspace's session store (`transcripts`: PostgreSQL in distributed mode), else its JSONL files. */
export type ImportTarget = TimelineStoreLocation & { version: string; transcripts?: Pick<SessionStore, "writeSession"> };

/**
 * An uploaded Claude Code transcript (JSONL text) as a new session of this workspace, read by the same
 * importer `cairn transcript import` uses and written through the session store, so it lands where the
 * workspace's sessions live. Broken lines are counted in the report; a text with no conversation in it at
 * all is refused before anything is written.
 */
export async function importTranscriptText(
  where: ImportTarget,
  jsonl: string,
  options: { name?: string; signal?: AbortSignal } = {},
): Promise<ImportedTranscript> {
  if (jsonl.length > MAX_TRANSCRIPT_CHARS) throw new ApiError("too_large", `A transcript may be at most ${MAX_TRANSCRIPT_CHARS / 1024 / 1024} MB`);
  const directory = await mkdtemp(join(tmpdir(), "cairn-import-"));
  const sessionId = randomUUID();
  try {
    const file = join(directory, uploadName(options.name));
    await writeFile(file, jsonl, "utf8");
    // Pass one of the loader alone says whether there is any conversation to import.
    const index = await indexTranscriptFile(file, options.signal);
    if (index.plan({ scope: "all" }).nodes.length === 0) {
      const { report } = index;
      throw new ApiError(
        "invalid_transcript",
        `No conversation found in the upload (${report.lines} lines, ${report.malformedLines + (report.tornTail ? 1 : 0)} malformed)`,
      );
    }
    const { session, report } = await readClaudeCodeTranscript(file, {
      cwd: where.workspaceRoot,
      sessionId,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    options.signal?.throwIfAborted();
    const store = where.transcripts ?? createJsonlSessionStore(where);
    await store.writeSession(session);
    return {
      sessionId,
      messageCount: session.messages.length,
      report: {
        lines: report.lines,
        malformedLines: report.malformedLines + report.invalidMessages,
        tornTail: report.tornTail,
        skippedLines: report.unknownLines,
        brokenLinks: report.brokenLinks,
      },
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The uploaded file's own name (recorded as where the session came from), reduced to safe characters. */
function uploadName(name: string | undefined): string {
  const base = (name ?? "").split(/[\\/]/).pop() ?? "";
  const safe = base
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "")
    .slice(0, 100);
  return safe.endsWith(".jsonl") ? safe : `${safe || "transcript"}.jsonl`;
}
