import { WorkspaceError } from "@cairn/core/workspace";
import type { WorkspaceErrorCode } from "@cairn/core/workspace";

type ErrnoLike = { code?: unknown; message?: unknown };

function errnoCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as ErrnoLike).code;
  return typeof code === "string" ? code : undefined;
}

const codeByErrno: Record<string, WorkspaceErrorCode> = {
  ENOENT: "not_found",
  EISDIR: "is_directory",
  ENOTDIR: "not_directory",
  ENAMETOOLONG: "invalid_path",
  ELOOP: "invalid_path",
  EINVAL: "invalid_path",
  EFBIG: "too_large",
};

const wordingByErrno: Record<string, string> = {
  ENOENT: "does not exist",
  EISDIR: "is a directory",
  ENOTDIR: "a component of the path is not a directory",
  ENAMETOOLONG: "the name is too long",
  ELOOP: "too many levels of symbolic links",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EEXIST: "already exists",
  ENOTEMPTY: "the directory is not empty",
  EXDEV: "cannot move across file systems",
  ENOSPC: "no space left on the device",
  EROFS: "the file system is read-only",
};

/** Turns a Node fs error into a WorkspaceError whose message names the path; WorkspaceErrors pass through. */
export function toWorkspaceError(error: unknown, path: string, action: string): WorkspaceError {
  if (error instanceof WorkspaceError) return error;
  const errno = errnoCode(error);
  if (errno === undefined) {
    const message = error instanceof Error ? error.message : String(error);
    return new WorkspaceError("io_error", `Could not ${action} ${path}: ${message}`, { path, cause: error });
  }
  const code = codeByErrno[errno] ?? "io_error";
  const wording = wordingByErrno[errno] ?? errno;
  return new WorkspaceError(code, `Could not ${action} ${path}: ${wording}`, { path, cause: error });
}

export function isErrno(error: unknown, ...codes: string[]): boolean {
  const errno = errnoCode(error);
  return errno !== undefined && codes.includes(errno);
}

export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException("The operation was aborted", "AbortError");
}
