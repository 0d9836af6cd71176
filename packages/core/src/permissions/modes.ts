import type { PermissionMode } from "../schema/permissions.ts";
import { relativeWithin } from "./posix-path.ts";

/** Directories that `acceptEdits` never edits without asking, wherever they appear in the workspace. */
export const protectedDirectoryNames: readonly string[] = [".git", ".claude", ".cairn"];

/** True when `path` lies in (or is) a protected directory below one of `roots`. */
export function isProtectedPath(path: string, roots: readonly string[]): boolean {
  for (const root of roots) {
    const relative = relativeWithin(root, path);
    if (relative === undefined) continue;
    if (relative.split("/").some((segment) => protectedDirectoryNames.includes(segment))) return true;
  }
  return false;
}

export const permissionModeDescriptions: Record<PermissionMode, string> = {
  default: "asks before anything that is not read-only",
  acceptEdits: "edits inside the workspace are allowed without asking (except .git, .claude, .cairn)",
  plan: "read-only tools only; leaving plan mode asks",
  auto: "a classifier model decides what no rule decides (edits inside the workspace as in acceptEdits); it asks when unsure or failing",
  bypassPermissions: "everything is allowed except deny rules and paths outside the workspace",
};

export class PermissionModeError extends Error {
  readonly code = "bypass_permissions_refused";
  constructor(message: string) {
    super(message);
    this.name = "PermissionModeError";
  }
}

export type BypassCheckInput = {
  /** `process.getuid()` where available; undefined on platforms without uids. */
  uid: number | undefined;
  /** Tools run inside a sandbox (bubblewrap) that confines writes and network. */
  sandboxed: boolean;
  /** `permissions.disableBypassPermissionsMode: "disable"` in any settings layer. */
  disabledBySettings?: boolean;
};

/**
 * Whether a session may start in bypassPermissions. As Claude Code does, it is refused to root
 * unless the tools are sandboxed, and refused whenever settings disable it.
 */
export function checkBypassPermissionsAllowed(input: BypassCheckInput): { ok: true } | { ok: false; reason: string } {
  if (input.disabledBySettings) return { ok: false, reason: "bypassPermissions mode is disabled by settings (permissions.disableBypassPermissionsMode)" };
  if (input.uid === 0 && !input.sandboxed) {
    return { ok: false, reason: "bypassPermissions cannot be used as root unless tools run in the sandbox" };
  }
  return { ok: true };
}

export function assertBypassPermissionsAllowed(input: BypassCheckInput): void {
  const result = checkBypassPermissionsAllowed(input);
  if (!result.ok) throw new PermissionModeError(result.reason);
}
