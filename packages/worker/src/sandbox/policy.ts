import { dirname } from "node:path";
import type { SandboxFilesystemPolicy } from "./sandbox-host.ts";

export type PolicyInput = {
  /** Real workspace directories: the root first, then additional directories. */
  roots: readonly string[];
  /** The workspace's private temp directory (TMPDIR and HOME of the shell). */
  privateDirectory: string;
  /** The server's home directory and Cairn's state directory. */
  serverHome: string;
  cairnHome: string;
  /** Settings' extra read denies. */
  denyRead: readonly string[];
  /** Runtime files the sandbox itself needs to read (its seccomp helper). */
  runtimeReadable: readonly string[];
};

/**
 * Reads are denied for the server's home, Cairn's state and the directories holding the workspace
 * (where other workspaces live), then re-allowed for the workspace itself; writes go only to the
 * workspace and its private temp directory.
 */
export function buildFilesystemPolicy(input: PolicyInput): SandboxFilesystemPolicy {
  const denyRead = unique([
    input.serverHome,
    input.cairnHome,
    ...input.roots.map((root) => dirname(root)),
    ...input.denyRead,
  ]).filter((path) => path !== "/" && path !== "");
  return {
    denyRead,
    allowRead: unique([...input.roots, input.privateDirectory, ...input.runtimeReadable]),
    allowWrite: unique([...input.roots, input.privateDirectory]),
  };
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}
