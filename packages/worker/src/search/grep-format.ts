import type { GrepOutputMode, GrepResult } from "@cairn/core";

export type GrepLine = { number: number; text: string; isMatch: boolean };

/** What one engine found in one file. `lines` is filled in content mode only, in line order. */
export type GrepFileHits = { path: string; count: number; lines: GrepLine[] };

/** ripgrep's `--max-columns 500`, which Claude Code's Grep passes: longer lines are replaced. */
export const MAX_COLUMNS = 500;
export const omittedMatchLine = "[Omitted long matching line]";
export const omittedContextLine = "[Omitted long context line]";

export type FormatOptions = {
  mode: GrepOutputMode;
  lineNumbers: boolean;
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
  let lines: string[];
  let matches: number;
  switch (options.mode) {
    case "files_with_matches": {
      const ordered = [...found].sort((left, right) => options.mtimeOf(right.path) - options.mtimeOf(left.path) || byPath(left, right));
      lines = ordered.map((file) => file.path);
      matches = found.reduce((sum, file) => sum + file.count, 0);
      break;
    }
    case "count": {
      const ordered = [...found].sort(byPath);
      lines = ordered.map((file) => `${file.path}:${file.count}`);
      matches = found.reduce((sum, file) => sum + file.count, 0);
      break;
    }
    case "content": {
      lines = [];
      matches = 0;
      let previous: { path: string; number: number } | undefined;
      for (const file of [...found].sort(byPath)) {
        for (const line of file.lines) {
          const contiguous = previous !== undefined && previous.path === file.path && line.number === previous.number + 1;
          if (options.hasContext && previous !== undefined && !contiguous) lines.push("--");
          const mark = line.isMatch ? ":" : "-";
          lines.push(options.lineNumbers ? `${file.path}${mark}${line.number}${mark}${line.text}` : `${file.path}${mark}${line.text}`);
          if (line.isMatch) matches += 1;
          previous = { path: file.path, number: line.number };
        }
      }
      break;
    }
  }
  const limit = options.headLimit !== undefined && options.headLimit > 0 ? options.headLimit : undefined;
  const truncated = limit !== undefined && lines.length > limit;
  return {
    mode: options.mode,
    lines: truncated ? lines.slice(0, limit) : lines,
    files: found.length,
    matches,
    truncated,
    engine: options.engine,
  };
}
