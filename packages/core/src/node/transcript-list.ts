import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { projectDirName } from "../schema/transcript.ts";
import { readHeadAndTail, type SessionFileSummary } from "./transcript-head-tail.ts";
import { assertSessionId } from "./transcript-store.ts";

export interface TranscriptFile {
  path: string;
  sessionId: string;
  /** The `projects/` folder it lives in: the session's cwd with non-alphanumerics replaced by "-". */
  projectDir: string;
}

/** Every `<sessionId>.jsonl` under `$CAIRN_HOME/projects/` (or only the folder of `cwd`). */
export async function listTranscriptFiles(cairnHome: string, cwd?: string): Promise<TranscriptFile[]> {
  const projectsRoot = join(cairnHome, "projects");
  const projectDirs = cwd === undefined ? await subdirectories(projectsRoot) : [projectDirName(cwd)];
  const files: TranscriptFile[] = [];
  for (const projectDir of projectDirs) {
    for (const entry of await entriesOf(join(projectsRoot, projectDir))) {
      if (!entry.isFile() || !entry.name.endsWith(".jsonl")) continue;
      files.push({ path: join(projectsRoot, projectDir, entry.name), sessionId: entry.name.slice(0, -6), projectDir });
    }
  }
  return files;
}

export interface ListSessionsOptions {
  signal?: AbortSignal;
  /** Files read at once. */
  concurrency?: number;
}

/** Sessions, most recently active first, each summarised from its head and tail. */
export async function listSessions(cairnHome: string, cwd?: string, options: ListSessionsOptions = {}): Promise<SessionFileSummary[]> {
  const files = await listTranscriptFiles(cairnHome, cwd);
  const summaries: SessionFileSummary[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      options.signal?.throwIfAborted();
      const file = files[next++]!;
      try {
        summaries.push(await readHeadAndTail(file.path, { signal: options.signal }));
      } catch (error) {
        // A file deleted between the directory read and now is simply not listed.
        if (!isNotFound(error)) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 16, files.length) }, worker));
  return summaries.sort((a, b) => b.lastActivityAt.localeCompare(a.lastActivityAt));
}

/** The transcript of `sessionId`: in `cwd`'s folder when given, else in whichever project holds it. */
export async function findSessionTranscript(cairnHome: string, sessionId: string, cwd?: string): Promise<string | undefined> {
  assertSessionId(sessionId);
  const projectsRoot = join(cairnHome, "projects");
  const projectDirs = cwd === undefined ? await subdirectories(projectsRoot) : [projectDirName(cwd)];
  for (const projectDir of projectDirs) {
    const path = join(projectsRoot, projectDir, `${sessionId}.jsonl`);
    try {
      if ((await stat(path)).isFile()) return path;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return undefined;
}

async function subdirectories(path: string): Promise<string[]> {
  return (await entriesOf(path)).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

async function entriesOf(path: string): Promise<Dirent[]> {
  try {
    return await readdir(path, { withFileTypes: true });
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}

export function isNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "ENOENT";
}
