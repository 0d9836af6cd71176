import { lstatSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { WorkspaceError } from "@cairn/core/workspace";
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
  /**
   * The repository directory of a linked worktree workspace (the main checkout's `.git`, where the
   * worktree's `.git` file points): readable and writable so git commits from the worktree, its hooks
   * and config read-only; the folder holding it (the main checkout) stays unreadable.
   */
  gitDirectories?: readonly string[];
  /** The `protectMissingFiles` setting: absent names in a root are refused too, each through a stand-in directory. */
  protectMissing?: boolean;
};

/**
 * Files in a workspace that make something run outside the sandbox later: shell and git configuration,
 * git hooks, editor tasks, MCP server lists and Claude Code / Cairn settings (whose hooks run on the
 * host). sandbox-runtime protects these relative to the process's working directory only, which is the
 * workspace for a worker process but not for an in-process workspace, so they are listed per root.
 */
const protectedNames = [
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

/**
 * The names in a root that get a stand-in only with `protectMissing`: with it, `ls -A` shows each
 * absent one as an empty directory while a shell runs, and nobody can create the file meanwhile (an
 * `.mcp.json` the user writes from the IDE, say). Without it they stay creatable where absent and
 * nothing shows. `.claude` always stands in: its settings' hooks are what Cairn itself runs on the host.
 */
const optionalStandIns = new Set(protectedNames.map((name) => name.split("/")[0] ?? name).filter((name) => name !== ".claude"));

function protectedPaths(root: string): string[] {
  return [...protectedNames.map((name) => join(root, name)), join(root, ".git")];
}

/**
 * The placeholders a shell starting now relies on (see WorkspacePlaceholders): bubblewrap can only
 * mount over something that exists, and an absent protected name right in a root cannot be refused
 * through the directory above it, which the shell must be able to write. So each protected name in
 * a root (its first component: `.claude` for `.claude/settings.json`) is held while the shell runs,
 * and becomes an empty directory where it is absent. All are held, present or not: one present now
 * may be another shell's placeholder, which must outlive that shell while this one runs. `.git` is
 * left out: where it is absent the workspace is no repository, and `git init` stays possible (its
 * hooks are protected from the next shell on).
 */
export function placeholdersNeeded(policy: SandboxFilesystemPolicy): string[] {
  const placeholders = new Set<string>();
  for (const path of policy.denyWrite) {
    if (path.endsWith(`${sep}.git`)) continue;
    const root = policy.allowWrite.find((directory) => path.startsWith(directory + sep));
    if (root === undefined) continue;
    const name = path.slice(root.length + 1).split(sep)[0] ?? "";
    if (policy.protectMissing !== true && optionalStandIns.has(name)) continue;
    placeholders.add(join(root, name));
  }
  return [...placeholders];
}

/**
 * The write denials to hand to the sandbox for a shell starting now, once `placeholdersNeeded` are
 * there. An existing path is denied itself; an absent one through the nearest directory above it
 * inside the workspace (an absent `.claude/settings.json` makes `.claude` read-only), so nothing is
 * made but the placeholders. A protected name still absent in a root (its placeholder removed
 * meanwhile) fails the start rather than leaving it creatable, unless the sandbox denies paths by
 * name (macOS Seatbelt: `mountsOnEntries` false), where it is denied as it is.
 */
export function writeDenialsNow(policy: SandboxFilesystemPolicy, mountsOnEntries = true): string[] {
  const denials = new Set<string>();
  const insideWritable = (path: string) => policy.allowWrite.some((allowed) => path.startsWith(allowed + sep));
  for (const path of policy.denyWrite) {
    if (path.endsWith(`${sep}.git`)) {
      // A worktree's `.git` file is denied itself; a repository's hooks and config, not the rest of `.git`.
      const kind = entryKind(path);
      if (kind === "file") denials.add(path);
      if (kind === "directory") for (const inner of [join(path, "hooks"), join(path, "config")]) addDenial(inner);
      continue;
    }
    addDenial(path);
  }
  return [...denials];

  function addDenial(path: string): void {
    const present = nearestExisting(path);
    if (present === path) denials.add(path);
    else if (insideWritable(present)) denials.add(present);
    else if (!mountsOnEntries) denials.add(path);
    else if (policy.allowWrite.includes(present)) {
      // Absent right in a root: creatable unless it stands in (see `optionalStandIns`).
      if (policy.protectMissing !== true && optionalStandIns.has(path.slice(present.length + 1).split(sep)[0] ?? "")) return;
      throw new WorkspaceError("sandbox_unavailable", `The sandbox could not protect ${path}: its placeholder directory is missing`, { path });
    }
  }
}

function entryKind(path: string): "directory" | "file" | "absent" {
  try {
    return lstatSync(path).isDirectory() ? "directory" : "file";
  } catch {
    return "absent";
  }
}

function nearestExisting(path: string): string {
  let current = path;
  while (entryKind(current) === "absent") {
    const parent = dirname(current);
    if (parent === current) return current;
    current = parent;
  }
  return current;
}

/**
 * Reads are denied for the server's home, Cairn's state and the directories holding the workspace
 * (where other workspaces live), then re-allowed for the workspace itself; writes go only to the
 * workspace and its private HOME and TMPDIR, minus the protected files above.
 */
export function buildFilesystemPolicy(input: PolicyInput): SandboxFilesystemPolicy {
  const gitDirectories = input.gitDirectories ?? [];
  const denyRead = unique([input.serverHome, input.cairnHome, ...[...input.roots, ...gitDirectories].map((root) => dirname(root)), ...input.denyRead]).filter(
    (path) => path !== "/" && path !== "",
  );
  // What would run on the host later: a repository's hooks and config (an absent one held by a placeholder, like the root's names).
  const gitExecutables = gitDirectories.flatMap((directory) => [join(directory, "hooks"), join(directory, "config")]);
  return {
    denyRead,
    allowRead: unique([...input.roots, ...gitDirectories, ...input.privateReadable, ...input.privateWritable, ...input.runtimeReadable]),
    allowWrite: unique([...input.roots, ...gitDirectories, ...input.privateWritable]),
    denyWrite: [...input.roots.flatMap(protectedPaths), ...gitExecutables],
    ...(input.protectMissing === true ? { protectMissing: true } : {}),
  };
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}
