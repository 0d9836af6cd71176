import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importClaudeCodeTranscript, indexTranscriptFile } from "@cairn/core/node";
import { ApiError } from "../router/errors.ts";
import type { TimelineStoreLocation } from "./source.ts";
import { MAX_TRANSCRIPT_CHARS, type ImportedTranscript } from "./timeline-port.ts";

/**
 * An uploaded Claude Code transcript (JSONL text) as a new session of this workspace, through the
 * same importer `cairn transcript import` uses. Broken lines are counted in the report; a text with
 * no conversation in it at all is refused before anything is written.
 */
export async function importTranscriptText(
  where: TimelineStoreLocation & { version: string },
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
    const imported = await importClaudeCodeTranscript(file, {
      cairnHome: where.cairnHome,
      cwd: where.workspaceRoot,
      sessionId,
      version: where.version,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const { report } = imported;
    return {
      sessionId,
      messageCount: imported.messageCount,
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
