import { join } from "node:path";
import { projectDirName } from "@cairn/core/schema";
import { createWorkspaceWorktrees, type GitWorktrees } from "@cairn/worker";
import { asApiError } from "../git/git-service.ts";
import { ApiError } from "../router/errors.ts";
import type { Runtime } from "../runtime/runtime-types.ts";
import { WorktreeRegistry, type WorktreeRecord } from "./worktree-registry.ts";

export type WorktreeSessionsOptions = {
  workspaceRoot: string;
  cairnHome: string;
  /** The runtime of a session rooted in its worktree: tools, sandbox, git and hooks there; `repository` is the main checkout's `.git`. */
  createRuntime(root: string, repository: string): Promise<Runtime>;
  /** The workspace's git worktrees (default: the worker's, with the server's git). */
  worktrees?: GitWorktrees;
};

/**
 * Sessions that run in a git worktree of their own (a branch `cairn/<sessionId>` checked out under
 * `$CAIRN_HOME/worktrees/<workspace>/<sessionId>`), so several agents edit one repository at once.
 * Each has its own runtime, made when the session is first used; the registry beside the worktrees
 * remembers them across restarts. Merge brings the branch back into the branch it came from; discard
 * removes the worktree and the branch.
 */
export class WorktreeSessions {
  private readonly options: WorktreeSessionsOptions;
  private readonly registry: WorktreeRegistry;
  private readonly worktrees: GitWorktrees;
  private readonly runtimes = new Map<string, Promise<Runtime>>();
  /** One git operation on the workspace's repository at a time (worktree add, merge and discard all lock it). */
  private gitQueue: Promise<unknown> = Promise.resolve();

  constructor(options: WorktreeSessionsOptions) {
    this.options = options;
    const directory = join(options.cairnHome, "worktrees", projectDirName(options.workspaceRoot));
    this.registry = new WorktreeRegistry(join(directory, "sessions.json"));
    this.worktrees = options.worktrees ?? createWorkspaceWorktrees(options.workspaceRoot, directory);
  }

  /** Makes the worktree and branch for a new session, records it, and starts its runtime. */
  async create(sessionId: string): Promise<{ record: WorktreeRecord; runtime: Runtime }> {
    const record = await this.serialized(async () => {
      const worktree = await this.worktrees.add(sessionId);
      const repository = await this.worktrees.repositoryDirectory();
      const created: WorktreeRecord = {
        sessionId,
        path: worktree.path,
        branch: worktree.branch,
        base: worktree.base,
        repository,
        createdAt: new Date().toISOString(),
      };
      await this.registry.put(created);
      return created;
    });
    return { record, runtime: await this.runtimeFor(sessionId, record) };
  }

  /** The session's worktree record (discarded ones included), or undefined for a session of the main checkout. */
  record(sessionId: string): Promise<WorktreeRecord | undefined> {
    return this.read(() => this.registry.get(sessionId));
  }

  all(): Promise<WorktreeRecord[]> {
    return this.read(() => this.registry.all());
  }

  /** The runtime of a live worktree session; undefined for a main-checkout session or a discarded worktree. */
  async runtime(sessionId: string): Promise<Runtime | undefined> {
    const record = await this.record(sessionId);
    if (!record || record.discardedAt !== undefined) return undefined;
    return this.runtimeFor(sessionId, record);
  }

  /** Commits what the session left in its worktree and merges its branch into the base branch of the workspace. */
  async merge(sessionId: string): Promise<{ commit: string; base: string; branch: string }> {
    const record = await this.active(sessionId);
    const { commit } = await this.serialized(() => this.worktrees.merge(sessionId, record.base));
    return { commit, base: record.base, branch: record.branch };
  }

  /** Stops the session's runtime, removes its worktree (uncommitted work included) and deletes its branch. */
  async discard(sessionId: string): Promise<WorktreeRecord> {
    const record = await this.active(sessionId);
    const runtime = this.runtimes.get(sessionId);
    this.runtimes.delete(sessionId);
    await runtime?.then((started) => started.close()).catch(() => undefined);
    await this.serialized(() => this.worktrees.discard(sessionId));
    const discarded = { ...record, discardedAt: new Date().toISOString() };
    await this.registry.put(discarded);
    return discarded;
  }

  async close(): Promise<void> {
    const started = [...this.runtimes.values()];
    this.runtimes.clear();
    await Promise.allSettled(started.map(async (runtime) => (await runtime).close()));
  }

  private runtimeFor(sessionId: string, record: WorktreeRecord): Promise<Runtime> {
    let runtime = this.runtimes.get(sessionId);
    if (!runtime) {
      runtime = this.options.createRuntime(record.path, record.repository);
      // A runtime that failed to start is tried again next time.
      runtime.catch(() => this.runtimes.delete(sessionId));
      this.runtimes.set(sessionId, runtime);
    }
    return runtime;
  }

  private async active(sessionId: string): Promise<WorktreeRecord> {
    const record = await this.record(sessionId);
    if (!record) throw new ApiError("worktree_not_found", "This session does not run in a worktree of its own: there is nothing to merge or discard.");
    if (record.discardedAt !== undefined) throw new ApiError("worktree_not_found", `This session's worktree was discarded (${record.branch} is gone).`);
    return record;
  }

  private async read<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw new ApiError("git_failed", `The worktree sessions list cannot be read: ${(error as Error).message}`, { cause: error });
    }
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.gitQueue.then(async () => {
      try {
        return await work();
      } catch (error) {
        throw asApiError(error);
      }
    });
    this.gitQueue = run.catch(() => undefined);
    return run;
  }
}
