import type { ToolUseContext, ValidationResult } from "../tool.ts";
import type { FileStat } from "../../workspace/port.ts";
import { basenameOf, dirnameOf, extnameOf, isAbsolutePath, joinPath, normalizePath } from "./path-utils.ts";
import { asWorkspaceError } from "./tool-failure.ts";

/** Claude Code's wording, which models are trained to read. */
export const fileNotReadMessage = "File has not been read yet. Read it first before writing to it.";
export const fileModifiedMessage = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.";
export const cwdNote = "Note: your current working directory is";

export function requireAbsolutePath(filePath: string, context: Pick<ToolUseContext, "cwd">): ValidationResult {
  if (filePath.trim() === "") return { ok: false, code: "empty_path", message: "file_path is empty. Give the absolute path of a file." };
  if (isAbsolutePath(filePath)) return { ok: true };
  return {
    ok: false,
    code: "relative_path",
    message: `file_path must be an absolute path, not a relative path. Did you mean ${joinPath(context.cwd, filePath)}?`,
  };
}

/**
 * The real, confined path of a file, used as the readFileState key so a symlink and its target count
 * as the same file. A path that does not exist yet keeps its lexical form. Throws WorkspaceError for a
 * path outside the workspace.
 */
export async function resolveFilePath(context: Pick<ToolUseContext, "workspace">, filePath: string): Promise<string> {
  try {
    return await context.workspace.resolve(filePath);
  } catch (error) {
    if (asWorkspaceError(error)?.code === "not_found") return normalizePath(filePath);
    throw error;
  }
}

/**
 * "File does not exist" with a cheap suggestion: the same path under the workspace root (models often
 * drop the root), or a sibling with the same name and another extension or letter case.
 */
export async function fileNotFoundMessage(context: Pick<ToolUseContext, "workspace" | "cwd">, filePath: string): Promise<string> {
  const base = `File does not exist. ${cwdNote} ${context.cwd}.`;
  const suggestion = (await suggestUnderCwd(context, filePath)) ?? (await suggestSibling(context, filePath));
  return suggestion ? `${base} Did you mean ${suggestion}?` : base;
}

async function suggestUnderCwd(context: Pick<ToolUseContext, "workspace" | "cwd">, filePath: string): Promise<string | undefined> {
  const normalized = normalizePath(filePath);
  if (normalized.startsWith(`${context.cwd}/`)) return undefined;
  const candidate = joinPath(context.cwd, normalized);
  return (await safeStat(context, candidate))?.kind === "file" ? candidate : undefined;
}

async function suggestSibling(context: Pick<ToolUseContext, "workspace">, filePath: string): Promise<string | undefined> {
  const directory = dirnameOf(filePath);
  const name = basenameOf(filePath);
  const stem = stemOf(name);
  let entries;
  try {
    entries = await context.workspace.list(directory);
  } catch {
    return undefined;
  }
  const match =
    entries.find((entry) => entry.kind === "file" && entry.name.toLowerCase() === name.toLowerCase()) ??
    entries.find((entry) => entry.kind === "file" && stemOf(entry.name) === stem);
  return match ? joinPath(directory, match.name) : undefined;
}

function stemOf(name: string): string {
  const extension = extnameOf(name);
  return extension ? name.slice(0, -extension.length) : name;
}

async function safeStat(context: Pick<ToolUseContext, "workspace">, path: string): Promise<FileStat | null> {
  try {
    return await context.workspace.stat(path);
  } catch {
    return null;
  }
}

/**
 * Edit and Write refuse a file that exists but was not Read in this session, or whose mtime or size
 * changed since (the user, a linter or a Bash command touched it).
 */
export function checkReadFreshness(context: Pick<ToolUseContext, "readFileState">, key: string, current: FileStat): ValidationResult {
  const record = context.readFileState.get(key);
  if (!record) return { ok: false, code: "file_not_read", message: fileNotReadMessage };
  if (record.mtimeMs !== current.mtimeMs || record.size !== current.size) {
    return { ok: false, code: "file_modified", message: fileModifiedMessage };
  }
  return { ok: true };
}

export function recordFileState(
  context: Pick<ToolUseContext, "readFileState">,
  key: string,
  stat: Pick<FileStat, "mtimeMs" | "size">,
  readAt: number,
  partial: boolean,
): void {
  context.readFileState.set(key, { mtimeMs: stat.mtimeMs, size: stat.size, readAt, partial });
}
