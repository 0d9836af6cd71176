import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Workspace } from "@cairn/core";
import type { CheckpointStore } from "@cairn/core/node";
import { ApiError } from "../router/errors.ts";
import { lineHunks, revertHunk } from "./line-hunks.ts";
import type { ChangedFileView, ChangesView, RevertResult } from "./review-types.ts";

/** Text shown in the diff; larger files (and binary ones) are listed without their content. */
const MAX_DIFF_FILE_BYTES = 1024 * 1024;

/** What the service needs of a session: its transcript, whether it runs, and a way to tell the agent. */
type ChangesSession = {
  /** The checkpoints recorded in the session's transcript, in order (undefined: nothing written yet). */
  transcriptCheckpoints(): Promise<ReadonlyArray<{ commit: string }> | undefined>;
  running: boolean;
  flush(): Promise<void>;
  recordNote(text: string): Promise<void>;
};

/** Where a session's files live: the main checkout, or its own worktree, with that checkout's checkpoints. */
export type SessionFiles = { workspace: Workspace; checkpoints: CheckpointStore | undefined };

type ChangesServiceOptions = {
  session(sessionId: string): Promise<ChangesSession>;
  filesOf(sessionId: string): Promise<SessionFiles>;
};

type Baseline = { baseline: string | null; store: CheckpointStore; session: ChangesSession; workspace: Workspace };

/**
 * The Changes panel: every file that differs from the session's first checkpoint (taken just before
 * its first change, so Bash's changes count), and reverts of a whole file or one hunk, written to disk
 * and recorded in the transcript as a note the model reads in its next request.
 */
export class ChangesService {
  private readonly options: ChangesServiceOptions;

  constructor(options: ChangesServiceOptions) {
    this.options = options;
  }

  async list(sessionId: string): Promise<ChangesView> {
    const { baseline, store, workspace } = await this.baselineOf(sessionId);
    if (baseline === null) return { baseline: null, files: [] };
    const changed = await store.changedSince(baseline);
    const files = await Promise.all(
      changed
        .sort((left, right) => left.path.localeCompare(right.path))
        .map(async (file): Promise<ChangedFileView> => {
          const [before, after] = await Promise.all([store.readFileAt(baseline, file.path), readNow(workspace, file.path)]);
          const beforeText = textOf(before);
          const afterText = textOf(after);
          const binary = (before !== null && beforeText === null) || (after !== null && afterText === null);
          return {
            path: file.path,
            status: file.status,
            before: binary ? null : beforeText,
            after: binary ? null : afterText,
            binary,
            sha256: hashOf(after),
            hunks: binary ? [] : lineHunks(beforeText ?? "", afterText ?? ""),
          };
        }),
    );
    return { baseline, files };
  }

  async revertFile(sessionId: string, path: string, expectedSha256: string | null): Promise<RevertResult> {
    const { baseline, store, session, workspace } = await this.prepareRevert(sessionId);
    await assertUnchanged(workspace, path, expectedSha256);
    const before = await store.readFileAt(baseline, path);
    const absolute = await resolveIn(workspace, path);
    if (before === null) await workspace.remove(absolute);
    else await workspace.writeFile(absolute, before);
    await session.recordNote(
      before === null
        ? `The user reverted ${path} in the IDE's Changes panel: the file, which this session created, was deleted.`
        : `The user reverted ${path} in the IDE's Changes panel to how it was before this session changed it. Read it again before editing it.`,
    );
    return { path, sha256: hashOf(before) };
  }

  async revertHunk(sessionId: string, path: string, hunkIndex: number, expectedSha256: string): Promise<RevertResult> {
    const { baseline, store, session, workspace } = await this.prepareRevert(sessionId);
    const now = await assertUnchanged(workspace, path, expectedSha256);
    const beforeText = textOf(await store.readFileAt(baseline, path)) ?? "";
    const afterText = textOf(now);
    if (afterText === null) throw new ApiError("invalid_path", `${path} is binary or too large to revert by hunk; revert the whole file`);
    const hunk = lineHunks(beforeText, afterText)[hunkIndex];
    if (!hunk) throw new ApiError("file_conflict", `${path} has no change number ${hunkIndex + 1} any more; reload the Changes panel`, { details: { path } });
    const reverted = revertHunk(beforeText, afterText, hunkIndex);
    await workspace.writeFile(await resolveIn(workspace, path), reverted);
    const lines = hunk.afterLines.length === 0 ? `after line ${hunk.afterStart}` : `lines ${hunk.afterStart}-${hunk.afterStart + hunk.afterLines.length - 1}`;
    await session.recordNote(
      `The user reverted one of this session's changes to ${path} in the IDE's Changes panel (${lines}, now as before the session). Read it again before editing it.`,
    );
    return { path, sha256: hashOf(new TextEncoder().encode(reverted)) };
  }

  private async baselineOf(sessionId: string): Promise<Baseline> {
    const session = await this.options.session(sessionId);
    const { workspace, checkpoints: store } = await this.options.filesOf(sessionId);
    if (!store) throw new ApiError("not_implemented", "File checkpoints are turned off on this server, so there is no record of the session's changes");
    await session.flush();
    const checkpoints = await session.transcriptCheckpoints();
    return { baseline: checkpoints?.[0]?.commit ?? null, store, session, workspace };
  }

  private async prepareRevert(sessionId: string): Promise<Baseline & { baseline: string }> {
    const found = await this.baselineOf(sessionId);
    if (found.session.running) throw new ApiError("session_busy", "Wait for the agent to finish (or interrupt it) before reverting its changes");
    if (found.baseline === null) throw new ApiError("file_conflict", "This session has not changed any file");
    return { ...found, baseline: found.baseline };
  }
}

/** The file now, refused when it is not the version the panel showed. */
async function assertUnchanged(workspace: Workspace, path: string, expectedSha256: string | null): Promise<Uint8Array | null> {
  const now = await readNow(workspace, path);
  const current = hashOf(now);
  if (current !== expectedSha256) {
    throw new ApiError("file_conflict", `${path} changed since the Changes panel showed it; nothing was reverted. Reload the panel to see the current diff.`, {
      details: { path },
    });
  }
  return now;
}

function resolveIn(workspace: Workspace, path: string): Promise<string> {
  return workspace.resolve(join(workspace.root, path));
}

async function readNow(workspace: Workspace, path: string): Promise<Uint8Array | null> {
  const absolute = await resolveIn(workspace, path);
  const stat = await workspace.stat(absolute);
  if (!stat || stat.kind !== "file") return null;
  return workspace.readFile(absolute);
}

function hashOf(bytes: Uint8Array | null): string | null {
  return bytes === null ? null : createHash("sha256").update(bytes).digest("hex");
}

function textOf(bytes: Uint8Array | null): string | null {
  if (bytes === null || bytes.byteLength > MAX_DIFF_FILE_BYTES || bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
