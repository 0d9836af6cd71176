import type { GrepQuery } from "@cairn/core/workspace";
import { splitGrepGlob, vcsDirectoryExcludes } from "./filters.ts";

/** A GrepQuery with its defaults applied, shared by both engines. */
export type GrepPlan = {
  pattern: string;
  mode: GrepQuery["outputMode"];
  /** Real path of the file or directory searched. */
  base: string;
  baseIsFile: boolean;
  globs: string[];
  type: string | undefined;
  before: number;
  after: number;
  caseInsensitive: boolean;
  multiline: boolean;
  lineNumbers: boolean;
  headLimit: number | undefined;
};

export function planGrep(query: GrepQuery, base: string, baseIsFile: boolean): GrepPlan {
  // As in Claude Code: -C wins over -A/-B. Line numbers default to on.
  const before = query.context ?? query.before ?? 0;
  const after = query.context ?? query.after ?? 0;
  return {
    pattern: query.pattern,
    mode: query.outputMode,
    base,
    baseIsFile,
    // The VCS excludes come last so that no user glob can bring .git back (the last match wins).
    globs: [...splitGrepGlob(query.glob), ...vcsDirectoryExcludes],
    type: query.type,
    before: query.outputMode === "content" ? Math.max(0, before) : 0,
    after: query.outputMode === "content" ? Math.max(0, after) : 0,
    caseInsensitive: query.caseInsensitive ?? false,
    multiline: query.multiline ?? false,
    lineNumbers: query.lineNumbers ?? true,
    headLimit: query.headLimit,
  };
}
