import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import { readTranscriptLines, sessionTranscriptPath, type TranscriptLinesReport } from "@cairn/core/node";
import type { TranscriptLine } from "@cairn/core/schema";
import type { TimelineDamage, TimelineSidechain, TimelineSource } from "@cairn/core/timeline";
import { ApiError } from "../router/errors.ts";

/** Where sessions live: a `Runtime` is one. */
export type TimelineStoreLocation = { cairnHome: string; workspaceRoot: string };

export type LoadTimelineSourceOptions = {
  signal?: AbortSignal;
  /**
   * Keep only these conversation lines (a share pinned at a message): tombstones of dropped lines
   * and the sidechains of Agent calls that were dropped go too. Meta lines are always kept.
   */
  messageUuids?: ReadonlySet<string>;
};

export const AGENT_FILE = /^agent-([A-Za-z0-9][A-Za-z0-9._-]*)\.jsonl$/;
const sidecarSchema = z.looseObject({ description: z.string().max(2_000).optional(), agentType: z.string().optional() });

/**
 * What the timeline draws of a session of this workspace: its transcript's lines as written (in file
 * order, tombstones kept) and its subagents' sidechain transcripts, read with the transcript
 * store's own reader. Damaged lines are skipped and counted in `damage`.
 */
export async function loadTimelineSource(where: TimelineStoreLocation, sessionId: string, options: LoadTimelineSourceOptions = {}): Promise<TimelineSource> {
  const path = sessionTranscriptPath({ cairnHome: where.cairnHome, cwd: where.workspaceRoot, sessionId });
  let main: Awaited<ReturnType<typeof readTranscriptLines>>;
  try {
    main = await readTranscriptLines(path, { sessionId, ...(options.signal ? { signal: options.signal } : {}) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new ApiError("session_not_found", `No session ${sessionId}`, { cause: error });
    throw error;
  }
  const reports: TranscriptLinesReport[] = [main.report];
  const files = await readSidechains(subagentDirectory(path, sessionId), sessionId, reports, options.signal);
  return assembleTimelineSource({
    sessionId,
    workspaceRoot: where.workspaceRoot,
    mainLines: main.lines,
    sidechainFiles: files,
    reports,
    ...(options.messageUuids ? { messageUuids: options.messageUuids } : {}),
  });
}

/** Where a session's subagent transcripts live. */
export function subagentDirectory(transcriptPath: string, sessionId: string): string {
  return join(dirname(transcriptPath), sessionId, "subagents");
}

/**
 * The source from lines already read: the main thread's (sidechain lines kept inline by older Claude
 * Code versions move to their own sidechains), the subagent files', pinned to `messageUuids` if given.
 */
export function assembleTimelineSource(input: {
  sessionId: string;
  workspaceRoot: string;
  mainLines: readonly TranscriptLine[];
  sidechainFiles: readonly TimelineSidechain[];
  reports: readonly TranscriptLinesReport[];
  messageUuids?: ReadonlySet<string>;
}): TimelineSource {
  const meta = input.mainLines.find((line) => line.type === "cairn-session");
  // Older Claude Code versions kept sidechain lines in the session file itself.
  const inline = new Map<string, TranscriptLine[]>();
  let lines = input.mainLines.filter((line) => {
    if (!isSidechainLine(line)) return true;
    const agentId = ("agentId" in line && typeof line.agentId === "string" ? line.agentId : undefined) ?? "sidechain";
    const sideLines = inline.get(agentId);
    if (sideLines) sideLines.push(line);
    else inline.set(agentId, [line]);
    return false;
  });
  let sidechains: TimelineSidechain[] = [...inline].map(([agentId, sideLines]) => ({ agentId, lines: sideLines }));
  sidechains.push(...input.sidechainFiles);
  if (input.messageUuids) {
    lines = keepMessages(lines, input.messageUuids);
    const spawned = spawnedAgents(lines);
    sidechains = sidechains.filter((sidechain) => spawned.has(sidechain.agentId));
  }
  return {
    sessionId: input.sessionId,
    title: meta?.type === "cairn-session" ? (meta.title ?? null) : null,
    cwd: meta?.type === "cairn-session" ? meta.cwd : input.workspaceRoot,
    imported: meta?.type === "cairn-session" && meta.importedFrom !== undefined,
    lines,
    sidechains,
    damage: damageOf(input.reports),
  };
}

async function readSidechains(
  directory: string,
  sessionId: string,
  reports: TranscriptLinesReport[],
  signal: AbortSignal | undefined,
): Promise<TimelineSidechain[]> {
  let names: string[];
  try {
    names = (await readdir(directory)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const sidechains: TimelineSidechain[] = [];
  for (const name of names) {
    const agentId = AGENT_FILE.exec(name)?.[1];
    if (agentId === undefined) continue;
    signal?.throwIfAborted();
    const { lines, report } = await readTranscriptLines(join(directory, name), { sessionId, ...(signal ? { signal } : {}) });
    reports.push(report);
    const description = await readSidechainDescription(join(directory, name));
    sidechains.push({ agentId, ...(description ? { description } : {}), lines });
  }
  return sidechains;
}

/** The sidecar Claude Code and Cairn write beside a sidechain (`agent-<id>.jsonl`): what the agent was asked to do. */
export async function readSidechainDescription(sidechainPath: string): Promise<string | undefined> {
  try {
    const parsed = sidecarSchema.safeParse(JSON.parse(await readFile(sidechainPath.replace(/\.jsonl$/, ".meta.json"), "utf8")));
    return parsed.success ? parsed.data.description : undefined;
  } catch {
    return undefined;
  }
}

function isSidechainLine(line: TranscriptLine): boolean {
  return (line.type === "user" || line.type === "assistant" || line.type === "system") && line.isSidechain === true;
}

function keepMessages(lines: TranscriptLine[], keep: ReadonlySet<string>): TranscriptLine[] {
  const kept = lines.filter((line) => {
    if (line.type === "user" || line.type === "assistant" || line.type === "system") return keep.has(line.uuid);
    return line.type === "cairn-session" || line.type === "tombstone";
  });
  const present = new Set<string>();
  for (const line of kept) {
    if (line.type === "user" || line.type === "system") present.add(line.uuid);
    if (line.type === "assistant") {
      present.add(line.uuid);
      present.add(line.message.id);
    }
  }
  return kept.filter((line) => line.type !== "tombstone" || present.has(line.tombstoneOf));
}

function spawnedAgents(lines: readonly TranscriptLine[]): Set<string> {
  const agents = new Set<string>();
  for (const line of lines) {
    if (line.type !== "user") continue;
    const result = line.toolUseResult;
    if (typeof result === "object" && result !== null && typeof (result as { agentId?: unknown }).agentId === "string")
      agents.add((result as { agentId: string }).agentId);
  }
  return agents;
}

function damageOf(reports: readonly TranscriptLinesReport[]): TimelineDamage {
  return {
    malformedLines: reports.reduce((sum, report) => sum + report.malformedLines, 0),
    tornTail: reports.some((report) => report.tornTail),
    skippedLines: reports.reduce((sum, report) => sum + report.unknownLines, 0),
  };
}
