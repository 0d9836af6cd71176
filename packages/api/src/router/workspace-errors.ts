import type { WorkspaceError } from "@cairn/core";
import { ApiError, type ApiErrorCode } from "./errors.ts";

const codeOf: Partial<Record<WorkspaceError["code"], ApiErrorCode>> = {
  outside_workspace: "outside_workspace",
  not_found: "file_not_found",
  invalid_path: "invalid_path",
  is_directory: "invalid_path",
  not_directory: "invalid_path",
  too_large: "too_large",
};

/** A workspace failure as the API reports it; unknown codes stay internal errors. */
export function fromWorkspaceError(error: WorkspaceError): ApiError | WorkspaceError {
  const code = codeOf[error.code];
  if (!code) return error;
  return new ApiError(code, error.message, { cause: error, ...(error.path ? { details: { path: error.path } } : {}) });
}
