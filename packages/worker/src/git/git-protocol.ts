import { z } from "zod";
import type { GitErrorCode } from "./git-runner.ts";
import type { GitRepository } from "./git-repository.ts";

/**
 * Git over the worker protocol: one `git` call per operation, its request and its result validated on
 * arrival, so the API process never runs git itself; git runs wherever the workspace lives.
 */
const paths = z.array(z.string()).min(1).max(10_000);
export const gitRequestSchema = z.discriminatedUnion("op", [
  z.strictObject({ op: z.literal("status") }),
  z.strictObject({ op: z.literal("init") }),
  z.strictObject({ op: z.literal("stage"), paths }),
  z.strictObject({ op: z.literal("unstage"), paths }),
  z.strictObject({ op: z.literal("commit"), message: z.string() }),
  z.strictObject({ op: z.literal("stagedDiff") }),
  z.strictObject({ op: z.literal("branches") }),
  z.strictObject({ op: z.literal("createBranch"), name: z.string() }),
  z.strictObject({ op: z.literal("switchBranch"), name: z.string() }),
  z.strictObject({ op: z.literal("push") }),
  z.strictObject({ op: z.literal("recentCommits"), limit: z.number().int().positive().max(100) }),
]);
export type GitRequest = z.infer<typeof gitRequestSchema>;

const fileState = z.enum(["modified", "added", "deleted", "renamed", "copied", "type-changed", "unmerged"]);
const statusSchema = z.discriminatedUnion("repository", [
  z.object({ repository: z.literal(false) }),
  z.object({
    repository: z.literal(true),
    remotes: z.array(z.string()),
    branch: z.string().nullable(),
    upstream: z.string().nullable(),
    ahead: z.number(),
    behind: z.number(),
    unborn: z.boolean(),
    files: z.array(
      z.object({
        path: z.string(),
        from: z.string().optional(),
        staged: fileState.nullable(),
        unstaged: z.union([fileState, z.literal("untracked")]).nullable(),
      }),
    ),
  }),
]);
const none = z.null();
const resultSchemas = {
  status: statusSchema,
  init: none,
  stage: none,
  unstage: none,
  commit: z.object({ commit: z.string(), summary: z.string() }),
  stagedDiff: z.object({ diff: z.string(), truncated: z.boolean() }),
  branches: z.array(z.object({ name: z.string(), current: z.boolean() })),
  createBranch: none,
  switchBranch: none,
  push: z.object({ output: z.string() }),
  recentCommits: z.string(),
} as const satisfies Record<GitRequest["op"], z.ZodType>;

export const gitErrorCodes = [
  "git_missing",
  "git_failed",
  "not_a_repository",
  "invalid_branch_name",
  "empty_commit_message",
  "no_remote",
  "outside_workspace",
  "merge_conflict",
] as const satisfies readonly GitErrorCode[];

/** The workspace side: runs one request against the workspace's own repository. */
export async function serveGitRequest(git: GitRepository, request: GitRequest): Promise<unknown> {
  switch (request.op) {
    case "status":
      return git.status();
    case "init":
      await git.init();
      return null;
    case "stage":
      await git.stage(request.paths);
      return null;
    case "unstage":
      await git.unstage(request.paths);
      return null;
    case "commit":
      return git.commit(request.message);
    case "stagedDiff":
      return git.stagedDiff();
    case "branches":
      return git.branches();
    case "createBranch":
      await git.createBranch(request.name);
      return null;
    case "switchBranch":
      await git.switchBranch(request.name);
      return null;
    case "push":
      return git.push();
    case "recentCommits":
      return git.recentCommits(request.limit);
  }
}

/** The caller's side: the same repository interface, every operation one `git` call across the boundary. */
export function remoteGit(call: (request: GitRequest) => Promise<unknown>): GitRepository {
  const run = async <Op extends GitRequest["op"]>(request: Extract<GitRequest, { op: Op }>): Promise<z.infer<(typeof resultSchemas)[Op]>> =>
    resultSchemas[request.op].parse(await call(request)) as z.infer<(typeof resultSchemas)[Op]>;
  return {
    status: () => run({ op: "status" }),
    init: async () => void (await run({ op: "init" })),
    stage: async (paths) => void (await run({ op: "stage", paths: [...paths] })),
    unstage: async (paths) => void (await run({ op: "unstage", paths: [...paths] })),
    commit: (message) => run({ op: "commit", message }),
    stagedDiff: () => run({ op: "stagedDiff" }),
    branches: () => run({ op: "branches" }),
    createBranch: async (name) => void (await run({ op: "createBranch", name })),
    switchBranch: async (name) => void (await run({ op: "switchBranch", name })),
    push: () => run({ op: "push" }),
    recentCommits: (limit) => run({ op: "recentCommits", limit }),
  };
}
