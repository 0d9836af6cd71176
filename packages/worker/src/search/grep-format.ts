import type { GrepOutputMode, GrepResult } from "@cairn/core/workspace";

/**
 * What one engine found in one file. In content mode `lines` holds the file's output lines already
 * formatted (`path:12:text`, `path-13-context`), with `--` between groups of lines that are not adjacent.
 */
export type GrepFileHits = { path: string; count: number; lines: string[] };

/** ripgrep's `--max-columns 500`, which Claude Code's Grep passes: longer lines are replaced. */
export const MAX_COLUMNS = 500;
export const omittedMatchLine = "[Omitted long matching line]";
export const omittedContextLine = "[Omitted long context line]";
export const groupSeparator = "--";

/** One output line of content mode, as ripgrep prints it without --heading. */
export function formatContentLine(path: string, lineNumber: number, isMatch: boolean, text: string, withNumbers: boolean): string {
  const mark = isMatch ? ":" : "-";
  return withNumbers ? `${path}${mark}${lineNumber}${mark}${text}` : `${path}${mark}${text}`;
}

export type FormatOptions = {
  mode: GrepOutputMode;
  /** Context lines requested: separators appear between groups only then. */
  hasContext: boolean;
  headLimit: number | undefined;
  engine: GrepResult["engine"];
  /** files_with_matches order: modification time, newest first. */
  mtimeOf: (path: string) => number;
};

const byPath = (left: GrepFileHits, right: GrepFileHits) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0);

/** One formatter for both engines, so identical hits give identical results. */
export function formatGrepResult(hits: GrepFileHits[], options: FormatOptions): GrepResult {
  const found = hits.filter((file) => file.count > 0 || file.lines.length > 0);
  const matches = found.reduce((sum, file) => sum + file.count, 0);
  let lines: string[];
  switch (options.mode) {
    case "files_with_matches":
      lines = [...found].sort((left, right) => options.mtimeOf(right.path) - options.mtimeOf(left.path) || byPath(left, right)).map((file) => file.path);
      break;
    case "count":
      lines = [...found].sort(byPath).map((file) => `${file.path}:${file.count}`);
      break;
    case "content":
      lines = [];
      for (const file of [...found].sort(byPath)) {
        if (options.hasContext && lines.length > 0) lines.push(groupSeparator);
        for (const line of file.lines) lines.push(line);
      }
      break;
  }
  const limit = options.headLimit !== undefined && options.headLimit > 0 ? options.headLimit : undefined;
  const truncated = limit !== undefined && lines.length > limit;
  return { mode: options.mode, lines: truncated ? lines.slice(0, limit) : lines, files: found.length, matches, truncated, engine: options.engine };
}
