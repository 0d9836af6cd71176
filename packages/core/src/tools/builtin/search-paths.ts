import type { ToolUseContext, ValidationResult } from "../tool.ts";
import { cwdNote } from "./file-access.ts";
import { resolveFrom } from "./path-utils.ts";
import { validateWithFailures } from "./tool-failure.ts";

/** Glob and Grep take an optional directory; relative ones are taken from the working directory. */
export function searchRoot(context: Pick<ToolUseContext, "cwd">, path: string | undefined): string | undefined {
  return path === undefined || path === "" ? undefined : resolveFrom(context.cwd, path);
}

export function validateSearchPath(
  context: Pick<ToolUseContext, "cwd" | "workspace" | "signal">,
  path: string | undefined,
  requireDirectory: boolean,
): Promise<ValidationResult> {
  return validateWithFailures(context, path, async () => {
    const root = searchRoot(context, path);
    if (root === undefined || path === undefined) return { ok: true };
    const stat = await context.workspace.stat(root);
    if (!stat) {
      const noun = requireDirectory ? "Directory" : "Path";
      return { ok: false, code: "not_found", message: `${noun} does not exist: ${path}. ${cwdNote} ${context.cwd}.` };
    }
    if (requireDirectory && stat.kind !== "directory") return { ok: false, code: "not_directory", message: `Path is not a directory: ${path}` };
    return { ok: true };
  });
}

/**
 * Search results name files relative to the working directory, as Claude Code shows them (it saves
 * tokens). Works on bare paths and on ripgrep lines (`/abs/path:12:text`); other lines are unchanged.
 */
export function relativizeLine(cwd: string, line: string): string {
  const prefix = cwd.endsWith("/") ? cwd : `${cwd}/`;
  return line.startsWith(prefix) ? line.slice(prefix.length) : line;
}
