import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { SandboxFilesystemPolicy } from "./sandbox-host.ts";

export type PolicyInput = {
  /** Real workspace directories: the root first, then additional directories. */
  roots: readonly string[];
  /** Private directories the shell reads but must not change (where the host puts command files)... */
  privateReadable: readonly string[];
  /** ...and those it may write (its HOME and TMPDIR). Their parent stays read-only, so none can be swapped for a link. */
  privateWritable: readonly string[];
  /** The server's home directory and Cairn's state directory. */
  serverHome: string;
  cairnHome: string;
  /** Settings' extra read denies. */
  denyRead: readonly string[];
  /** Runtime files the sandbox itself needs to read (its seccomp helper). */
  runtimeReadable: readonly string[];
};

/**
 * Files in a workspace that make something run outside the sandbox later: shell and git configuration,
 * git hooks, editor tasks, MCP server lists and Claude Code / Cairn settings (whose hooks run on the
 * host). sandbox-runtime protects these relative to the process's working directory only, which is the
 * workspace for a worker process but not for an in-process workspace, so they are listed per root.
 */
export const protectedNames = [
  ".gitconfig",
  ".gitmodules",
  ".bashrc",
  ".bash_profile",
  ".zshrc",
  ".zprofile",
  ".profile",
  ".ripgreprc",
  ".mcp.json",
  ".vscode",
  ".idea",
  ".claude/commands",
  ".claude/agents",
  ".claude/settings.json",
  ".claude/settings.local.json",
];

function protectedPaths(root: string): string[] {
  const paths = protectedNames.map((name) => join(root, name));
  const dotGit = join(root, ".git");
  const kind = (() => {
    try {
      return statSync(dotGit).isDirectory() ? "directory" : "file";
    } catch {
      return "absent";
    }
  })();
  if (kind === "directory") paths.push(join(dotGit, "hooks"), join(dotGit, "config"));
  if (kind === "file") paths.push(dotGit);
  return paths;
}

/**
 * Reads are denied for the server's home, Cairn's state and the directories holding the workspace
 * (where other workspaces live), then re-allowed for the workspace itself; writes go only to the
 * workspace and its private HOME and TMPDIR, minus the protected files above.
 */
export function buildFilesystemPolicy(input: PolicyInput): SandboxFilesystemPolicy {
  const denyRead = unique([input.serverHome, input.cairnHome, ...input.roots.map((root) => dirname(root)), ...input.denyRead]).filter(
    (path) => path !== "/" && path !== "",
  );
  return {
    denyRead,
    allowRead: unique([...input.roots, ...input.privateReadable, ...input.privateWritable, ...input.runtimeReadable]),
    allowWrite: unique([...input.roots, ...input.privateWritable]),
    denyWrite: input.roots.flatMap(protectedPaths),
  };
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}
