import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";

export const apiErrorCodes = [
  "session_not_found",
  "session_busy",
  "queue_full",
  "permission_not_found",
  "file_conflict",
  "file_not_found",
  "file_exists",
  "outside_workspace",
  "invalid_path",
  "too_large",
  "terminal_not_found",
  "terminal_unavailable",
  "not_implemented",
  "invalid_rule",
  "message_not_found",
  "untrusted_workspace",
  "mode_not_allowed",
  "compaction_failed",
  "mcp_server_not_found",
  "invalid_transcript",
  "event_not_found",
  "not_a_repository",
  "invalid_branch_name",
  "empty_commit_message",
  "no_remote",
  "git_failed",
  "unknown_command",
  "merge_conflict",
  "worktree_not_found",
  "owner_unreachable",
  "not_owner",
] as const;
export type ApiErrorCode = (typeof apiErrorCodes)[number];

const trpcCodeOf: Record<ApiErrorCode, TRPC_ERROR_CODE_KEY> = {
  session_not_found: "NOT_FOUND",
  session_busy: "CONFLICT",
  queue_full: "TOO_MANY_REQUESTS",
  permission_not_found: "NOT_FOUND",
  file_conflict: "CONFLICT",
  file_not_found: "NOT_FOUND",
  file_exists: "CONFLICT",
  outside_workspace: "FORBIDDEN",
  invalid_path: "BAD_REQUEST",
  too_large: "PAYLOAD_TOO_LARGE",
  terminal_not_found: "NOT_FOUND",
  terminal_unavailable: "PRECONDITION_FAILED",
  not_implemented: "NOT_IMPLEMENTED",
  invalid_rule: "BAD_REQUEST",
  message_not_found: "NOT_FOUND",
  untrusted_workspace: "PRECONDITION_FAILED",
  mode_not_allowed: "FORBIDDEN",
  compaction_failed: "PRECONDITION_FAILED",
  mcp_server_not_found: "NOT_FOUND",
  invalid_transcript: "BAD_REQUEST",
  event_not_found: "NOT_FOUND",
  not_a_repository: "PRECONDITION_FAILED",
  invalid_branch_name: "BAD_REQUEST",
  empty_commit_message: "BAD_REQUEST",
  no_remote: "PRECONDITION_FAILED",
  git_failed: "CONFLICT",
  unknown_command: "BAD_REQUEST",
  merge_conflict: "CONFLICT",
  worktree_not_found: "NOT_FOUND",
  owner_unreachable: "SERVICE_UNAVAILABLE",
  not_owner: "CONFLICT",
};

/** Details a client can act on, e.g. the current mtime after a write conflict. JSON only. */
export type ApiErrorDetails = { currentMtimeMs?: number; path?: string };

/** A failure the user or the UI can act on. Its string `code` and details reach the client in `error.data.cairn`. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: ApiErrorCode;
  readonly details: ApiErrorDetails;

  constructor(code: ApiErrorCode, message: string, options: { details?: ApiErrorDetails; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }

  toTRPCError(): TRPCError {
    return new TRPCError({ code: trpcCodeOf[this.code], message: this.message, cause: this });
  }
}

/** What `error.data.cairn` holds on the client. */
export type ApiErrorData = { code: ApiErrorCode; details: ApiErrorDetails } | null;

export function apiErrorData(error: unknown): ApiErrorData {
  const found = error instanceof ApiError ? error : error instanceof TRPCError && error.cause instanceof ApiError ? error.cause : undefined;
  return found ? { code: found.code, details: found.details } : null;
}
