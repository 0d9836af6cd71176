import { mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { projectDirName } from "../schema/transcript.ts";
import { CheckpointError, runGit, type GitInvocation } from "./checkpoint-git.ts";

export { CheckpointError } from "./checkpoint-git.ts";
export type { CheckpointErrorCode } from "./checkpoint-git.ts";

export interface CheckpointStoreOptions {
  cairnHome: string;
  workspaceRoot: string;
  gitBinary?: string;
  /** The PATH to find git on; defaults to this process's. */
  pathEnv?: string;
}

export interface Checkpoint {
  commit: string;
  label: string;
  timestamp: string;
}

export interface RestoreResult {
  restored: string;
  /** A checkpoint of the files as they were just before the restore, to undo it. */
  backup: string;
}

/** A file that differs between a checkpoint and the workspace now. */
export interface ChangedFile {
  path: string;
  status: "added" | "modified" | "deleted";
}

export interface CheckpointStore {
  readonly gitDir: string;
  /**
   * The files that differ between `commit` and the workspace as it is now (respecting its .gitignore),
   * without recording a checkpoint; paths are relative to the workspace, with "/" separators.
   */
  changedSince(commit: string, options?: { signal?: AbortSignal }): Promise<ChangedFile[]>;
  /** A file's bytes in a checkpoint, or null when the checkpoint has no such file. */
  readFileAt(commit: string, path: string, options?: { signal?: AbortSignal }): Promise<Uint8Array | null>;
  /** Commits the workspace as it is now (respecting its .gitignore) and returns the commit id. */
  snapshot(label: string, options?: { signal?: AbortSignal }): Promise<string>;
  /** Makes the workspace's files match `commit`: edits undone, deleted files back, newer files removed. */
  restoreFiles(commit: string, options?: { signal?: AbortSignal }): Promise<RestoreResult>;
  /** Newest first. */
  listCheckpoints(options?: { signal?: AbortSignal }): Promise<Checkpoint[]>;
}

const BRANCH = "refs/heads/checkpoints";
/** A lock file older than this was left by a killed git, not held by a running one. */
const STALE_LOCK_MS = 30_000;

/**
 * Workspace checkpoints in a shadow git repository, `$CAIRN_HOME/checkpoints/<projectDirName>/`,
 * used as `git --git-dir=<shadow> --work-tree=<workspace>`: the workspace's own `.git` is never
 * touched. The shadow index is kept between snapshots, so `git add -A` only re-hashes files whose
 * stat data changed (plus the untracked cache for new files): a snapshot after a one-file change
 * stays fast on a large workspace: `add`, `write-tree` and, when something changed, `commit-tree`
 * (the branch ref is written directly). Operations on one store run one at a time. Nested
 * repositories are recorded by git as links, not their files.
 */
export function createCheckpointStore(options: CheckpointStoreOptions): CheckpointStore {
  const workTree = resolve(options.workspaceRoot);
  const gitDir = join(options.cairnHome, "checkpoints", projectDirName(workTree));
  let queue: Promise<unknown> = Promise.resolve();
  let initialized = false;
  let head: { commit: string; tree: string } | undefined;

  const enqueue = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };
  const git = (signal: AbortSignal | undefined): GitInvocation => ({
    gitBinary: options.gitBinary ?? "git",
    gitDir,
    workTree,
    pathEnv: options.pathEnv ?? process.env.PATH,
    ...(signal === undefined ? {} : { signal }),
  });

  const ensureRepository = async (signal: AbortSignal | undefined): Promise<void> => {
    if (initialized) {
      await clearStaleLock(gitDir);
      return;
    }
    await clearStaleLock(gitDir);
    if (await isFile(join(gitDir, "HEAD"))) {
      initialized = true;
      return;
    }
    await mkdir(gitDir, { recursive: true });
    await runGit(git(signal), ["init", "--quiet"]);
    const settings: Array<[string, string]> = [
      ["core.bare", "false"],
      ["core.autocrlf", "false"],
      ["core.fsmonitor", "false"],
      ["core.untrackedCache", "true"],
      ["core.preloadIndex", "true"],
      ["core.hooksPath", "/dev/null"],
      ["core.quotePath", "false"],
      ["index.version", "4"],
      ["gc.auto", "0"],
      ["commit.gpgSign", "false"],
    ];
    for (const [key, value] of settings) await runGit(git(signal), ["config", key, value]);
    const excludes = [".git/", ...shadowInsideWorkspace(gitDir, workTree)];
    await mkdir(join(gitDir, "info"), { recursive: true });
    await writeFile(join(gitDir, "info", "exclude"), `${excludes.join("\n")}\n`);
    initialized = true;
  };

  const currentHead = async (signal: AbortSignal | undefined): Promise<{ commit: string; tree: string } | undefined> => {
    if (head !== undefined && (await readLooseRef(gitDir)) === head.commit) return head;
    const result = await runGit(git(signal), ["log", "-1", "--format=%H %T", BRANCH, "--"], [0, 128]);
    const [commit, tree] = result.stdout.trim().split(" ");
    if (result.exitCode !== 0 || commit === undefined || tree === undefined) return undefined;
    head = { commit, tree };
    return head;
  };

  const snapshotNow = async (label: string, signal: AbortSignal | undefined): Promise<string> => {
    await ensureRepository(signal);
    await runGit(git(signal), ["add", "--all", "--ignore-errors", "--", "."], [0, 1]);
    const tree = (await runGit(git(signal), ["write-tree"])).stdout.trim();
    const parent = await currentHead(signal);
    if (parent !== undefined && parent.tree === tree) return parent.commit;
    const parentArgs = parent === undefined ? [] : ["-p", parent.commit];
    const commit = (await runGit(git(signal), ["commit-tree", tree, ...parentArgs, "-m", label || "checkpoint"])).stdout.trim();
    // The branch is a loose ref: written as git writes one (a .lock file renamed over it), saving a process.
    await writeLooseRef(gitDir, commit, parent?.commit);
    head = { commit, tree };
    return commit;
  };

  const verifyCommit = async (commit: string, signal: AbortSignal | undefined): Promise<string> => {
    const verified = await runGit(git(signal), ["rev-parse", "--verify", "--quiet", `${commit}^{commit}`], [0, 1, 128]);
    if (verified.exitCode !== 0) throw new CheckpointError("unknown-checkpoint", `No checkpoint ${commit}`);
    return verified.stdout.trim();
  };

  return {
    gitDir,
    changedSince(commit, callOptions = {}) {
      return enqueue(async () => {
        const signal = callOptions.signal;
        await ensureRepository(signal);
        const target = await verifyCommit(commit, signal);
        // The shadow index is the snapshot's cache: refreshing it here only saves the next snapshot work.
        await runGit(git(signal), ["add", "--all", "--ignore-errors", "--", "."], [0, 1]);
        const tree = (await runGit(git(signal), ["write-tree"])).stdout.trim();
        const listed = await runGit(git(signal), ["diff-tree", "-r", "-z", "--no-renames", "--name-status", target, tree]);
        return parseNameStatus(listed.stdout);
      });
    },
    readFileAt(commit, path, callOptions = {}) {
      return enqueue(async () => {
        const signal = callOptions.signal;
        await ensureRepository(signal);
        const target = await verifyCommit(commit, signal);
        const result = await runGit(git(signal), ["cat-file", "blob", `${target}:${path.split(sep).join("/")}`], [0, 128]);
        return result.exitCode === 0 ? result.bytes : null;
      });
    },
    snapshot(label, callOptions = {}) {
      return enqueue(() => snapshotNow(label, callOptions.signal));
    },
    restoreFiles(commit, callOptions = {}) {
      return enqueue(async () => {
        const signal = callOptions.signal;
        await ensureRepository(signal);
        const target = await verifyCommit(commit, signal);
        // Records the present state (and puts every current file in the index), so that reading the
        // target tree with -u also removes the files created since.
        const backup = await snapshotNow(`before restoring ${target.slice(0, 12)}`, signal);
        await runGit(git(signal), ["read-tree", "--reset", "-u", target]);
        return { restored: target, backup };
      });
    },
    listCheckpoints(callOptions = {}) {
      return enqueue(async () => {
        await ensureRepository(callOptions.signal);
        const result = await runGit(git(callOptions.signal), ["log", "--format=%H%x09%cI%x09%s", BRANCH, "--"], [0, 128]);
        if (result.exitCode !== 0) return [];
        return result.stdout
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => {
            const [commit = "", timestamp = "", ...label] = line.split("\t");
            return { commit, timestamp, label: label.join("\t") };
          });
      });
    },
  };
}

function parseNameStatus(output: string): ChangedFile[] {
  const fields = output.split("\0");
  const files: ChangedFile[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const letter = fields[index];
    const path = fields[index + 1];
    if (path === undefined || path === "") continue;
    const status = letter === "A" ? "added" : letter === "D" ? "deleted" : "modified";
    files.push({ path, status });
  }
  return files;
}

function shadowInsideWorkspace(gitDir: string, workTree: string): string[] {
  const inside = relative(workTree, resolve(gitDir));
  if (inside === "" || inside.startsWith("..") || inside.startsWith(sep)) return [];
  return [`/${inside.split(sep).join("/")}/`];
}

async function readLooseRef(gitDir: string): Promise<string | undefined> {
  try {
    return (await readFile(join(gitDir, BRANCH), "utf8")).trim();
  } catch {
    return undefined;
  }
}

async function writeLooseRef(gitDir: string, commit: string, expected: string | undefined): Promise<void> {
  const path = join(gitDir, BRANCH);
  const lock = `${path}.lock`;
  await mkdir(dirname(path), { recursive: true });
  // O_EXCL: the same lock git takes, so a concurrent git (or store) cannot interleave.
  const handle = await open(lock, "wx").catch((error: unknown) => {
    throw new CheckpointError("git-failed", `The checkpoint branch is locked (${lock})`, { cause: error });
  });
  try {
    const current = await readLooseRef(gitDir);
    if (current !== expected && !(current === undefined && expected === undefined)) {
      throw new CheckpointError("git-failed", `The checkpoint branch moved (expected ${expected ?? "none"}, found ${current ?? "none"})`);
    }
    await handle.writeFile(`${commit}\n`);
    await handle.close();
    await rename(lock, path);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(lock, { force: true });
    throw error;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function clearStaleLock(gitDir: string): Promise<void> {
  const lock = join(gitDir, "index.lock");
  try {
    const { mtimeMs } = await stat(lock);
    if (Date.now() - mtimeMs > STALE_LOCK_MS) await rm(lock, { force: true });
  } catch {
    // No lock: the usual case.
  }
}
