import type { ToolResult, ToolUseContext, ValidationResult } from "../tool.ts";
import { WorkspaceError, workspaceErrorCodes, type WorkspaceErrorCode } from "../../workspace/port.ts";

/**
 * Failures the model can act on become `is_error` results. Their `output` is the string Claude Code
 * stores as `toolUseResult` for a failed call (`"Error: …"`), so transcripts stay interchangeable.
 */
export type ToolFailureOutput = `Error: ${string}`;

export function toolFailure(message: string): ToolResult<ToolFailureOutput> {
  return { output: `Error: ${message}`, content: message, isError: true };
}

export const interruptedMessage = "Interrupted: the operation was aborted before it completed.";

/** A WorkspaceError that crossed a process boundary may be a plain object with the same name and code. */
export function asWorkspaceError(error: unknown): WorkspaceError | undefined {
  if (error instanceof WorkspaceError) return error;
  if (typeof error !== "object" || error === null) return undefined;
  const candidate = error as { name?: unknown; code?: unknown; message?: unknown; path?: unknown };
  if (candidate.name !== "WorkspaceError" || !workspaceErrorCodes.includes(candidate.code as WorkspaceErrorCode)) return undefined;
  return new WorkspaceError(candidate.code as WorkspaceErrorCode, String(candidate.message ?? ""), {
    path: typeof candidate.path === "string" ? candidate.path : undefined,
    cause: error,
  });
}

/** Words the model can act on for each workspace refusal. Never echoes file contents. */
export function describeWorkspaceError(error: WorkspaceError, requestedPath: string | undefined, context: Pick<ToolUseContext, "workspace">): string {
  const subject = requestedPath ?? error.path ?? "the path";
  const root = context.workspace.root;
  switch (error.code) {
    case "outside_workspace":
      return `Access denied: ${subject} is outside the workspace (${root}). Tools can only reach files inside ${root}, after following symlinks.`;
    case "not_found":
      return `File does not exist: ${subject}.`;
    case "is_directory":
      return `${subject} is a directory, not a file.`;
    case "not_directory":
      return `${subject} is not a directory (a component of the path is a file).`;
    case "invalid_path":
      return `Invalid path: ${error.message}`;
    case "invalid_pattern":
      return `Invalid pattern: ${error.message}`;
    case "invalid_request":
      return `Invalid request: ${error.message}`;
    case "too_large":
      return `${subject} is too large: ${error.message}`;
    case "sandbox_unavailable":
      return `The command sandbox is unavailable, so commands cannot run: ${error.message}`;
    case "worker_unavailable":
      return `The workspace worker is unavailable: ${error.message}. Try again in a moment.`;
    case "io_error":
      return `I/O error on ${subject}: ${error.message}`;
  }
}

/** The code and message for an expected failure (workspace refusal or abort); undefined for anything else. */
async function explainFailure(
  error: unknown,
  context: Pick<ToolUseContext, "signal" | "workspace">,
  requestedPath: string | undefined,
): Promise<{ code: string; message: string } | undefined> {
  const workspaceError = asWorkspaceError(error);
  if (workspaceError) {
    const hint = workspaceError.code === "outside_workspace" ? await underRootHint(context, requestedPath) : "";
    return { code: workspaceError.code, message: describeWorkspaceError(workspaceError, requestedPath, context) + hint };
  }
  if (context.signal.aborted) return { code: "interrupted", message: interruptedMessage };
  return undefined;
}

/**
 * Runs one tool body and turns expected failures into results: a WorkspaceError becomes an
 * `is_error` result naming the problem, an abort becomes an interrupted result. Anything else is a
 * programmer error and propagates.
 */
export async function withToolFailures<Output>(
  context: Pick<ToolUseContext, "signal" | "workspace">,
  requestedPath: string | undefined,
  body: () => Promise<ToolResult<Output>>,
): Promise<ToolResult<Output | ToolFailureOutput>> {
  if (context.signal.aborted) return toolFailure(interruptedMessage);
  try {
    return await body();
  } catch (error) {
    const failure = await explainFailure(error, context, requestedPath);
    if (failure) return toolFailure(failure.message);
    throw error;
  }
}

/** validateInput's twin of withToolFailures: a refusal becomes a validation message carrying its code. */
export async function validateWithFailures(
  context: Pick<ToolUseContext, "signal" | "workspace">,
  requestedPath: string | undefined,
  body: () => Promise<ValidationResult>,
): Promise<ValidationResult> {
  if (context.signal.aborted) return { ok: false, code: "interrupted", message: interruptedMessage };
  try {
    return await body();
  } catch (error) {
    const failure = await explainFailure(error, context, requestedPath);
    if (failure) return { ok: false, ...failure };
    throw error;
  }
}

/** Models sometimes drop the workspace root (`/src/a.ts`); point at the file they probably meant. */
async function underRootHint(context: Pick<ToolUseContext, "workspace">, requestedPath: string | undefined): Promise<string> {
  if (requestedPath === undefined || !requestedPath.startsWith("/") || requestedPath.includes("..")) return "";
  const candidate = `${context.workspace.root.replace(/\/$/, "")}${requestedPath}`;
  try {
    return (await context.workspace.stat(candidate)) ? ` Did you mean ${candidate}?` : "";
  } catch {
    return "";
  }
}
