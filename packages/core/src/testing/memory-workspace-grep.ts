import picomatch from "picomatch/posix";
import { type GrepQuery, type GrepResult, WorkspaceError } from "../workspace/port.ts";
import { basenameOf, extnameOf, relativeTo } from "../tools/builtin/path-utils.ts";

/** ripgrep's `--type` names for the few languages tests use. */
const typeExtensions: Record<string, readonly string[]> = {
  js: [".js", ".jsx", ".mjs", ".cjs"],
  ts: [".ts", ".tsx", ".mts", ".cts"],
  py: [".py"],
  rust: [".rs"],
  go: [".go"],
  md: [".md", ".markdown"],
  json: [".json"],
};

const skippedDirectories = [".git", ".svn", ".hg"];

/**
 * A ripgrep-shaped search over in-memory files: `path:line:text` for content, `path:count` for counts,
 * context lines as `path-line-text` with `--` between groups, matching files newest first. Good
 * enough for tests; the real worker uses ripgrep.
 */
export function grepMemoryFiles(query: GrepQuery, base: string, files: Array<{ path: string; text: string; mtimeMs: number }>): GrepResult {
  let regex: RegExp;
  try {
    regex = new RegExp(query.pattern, `g${query.caseInsensitive ? "i" : ""}${query.multiline ? "s" : ""}`);
  } catch (error) {
    throw new WorkspaceError("invalid_pattern", `regex parse error: ${(error as Error).message}`, { cause: error });
  }
  const globMatcher = query.glob ? picomatch(query.glob, { dot: true }) : undefined;
  const globOnName = query.glob !== undefined && !query.glob.includes("/");
  const extensions = query.type ? typeExtensions[query.type] : undefined;
  if (query.type && !extensions) throw new WorkspaceError("invalid_pattern", `unrecognized file type: ${query.type}`);

  const selected = files
    .filter(
      (file) =>
        !relativeTo(base, file.path)
          .split("/")
          .some((segment) => skippedDirectories.includes(segment)),
    )
    .filter((file) => !globMatcher || globMatcher(globOnName ? basenameOf(file.path) : relativeTo(base, file.path)))
    .filter((file) => !extensions || extensions.includes(extnameOf(file.path)))
    // Like the worker: files_with_matches newest first, other modes by path.
    .sort((a, b) => (query.outputMode === "files_with_matches" ? b.mtimeMs - a.mtimeMs : 0) || a.path.localeCompare(b.path));

  const lines: string[] = [];
  let fileCount = 0;
  let matchCount = 0;
  for (const file of selected) {
    const fileLines = file.text.split("\n");
    if (fileLines.at(-1) === "") fileLines.pop();
    const matching = matchingLines(file.text, fileLines, regex, query.multiline === true);
    if (matching.size === 0) continue;
    fileCount += 1;
    const occurrences = [...matching.values()].reduce((sum, count) => sum + count, 0);
    matchCount += occurrences;
    if (query.outputMode === "files_with_matches") lines.push(file.path);
    else if (query.outputMode === "count") lines.push(`${file.path}:${matching.size}`);
    else lines.push(...contentLines(file.path, fileLines, matching, query));
  }
  const limit = query.headLimit;
  const truncated = limit !== undefined && limit > 0 && lines.length > limit;
  return {
    mode: query.outputMode,
    lines: truncated ? lines.slice(0, limit) : lines,
    files: fileCount,
    matches: matchCount,
    truncated,
    engine: "javascript",
  };
}

/** Line index → number of matches starting on it. */
function matchingLines(text: string, fileLines: string[], regex: RegExp, multiline: boolean): Map<number, number> {
  const result = new Map<number, number>();
  if (!multiline) {
    fileLines.forEach((line, index) => {
      const count = [...line.matchAll(regex)].length;
      if (count > 0) result.set(index, count);
    });
    return result;
  }
  for (const match of text.matchAll(regex)) {
    const line = text.slice(0, match.index).split("\n").length - 1;
    result.set(line, (result.get(line) ?? 0) + 1);
  }
  return result;
}

function contentLines(path: string, fileLines: string[], matching: Map<number, number>, query: GrepQuery): string[] {
  const before = query.context ?? query.before ?? 0;
  const after = query.context ?? query.after ?? 0;
  const shown = new Set<number>();
  for (const index of matching.keys()) {
    for (let line = Math.max(0, index - before); line <= Math.min(fileLines.length - 1, index + after); line++) shown.add(line);
  }
  const result: string[] = [];
  let previous: number | undefined;
  for (const index of [...shown].sort((a, b) => a - b)) {
    if (previous !== undefined && index > previous + 1) result.push("--");
    const separator = matching.has(index) ? ":" : "-";
    const number = query.lineNumbers ? `${index + 1}${separator}` : "";
    result.push(`${path}${separator}${number}${fileLines[index] ?? ""}`);
    previous = index;
  }
  return result;
}
