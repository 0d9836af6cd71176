import { readFile } from "node:fs";
import { MAX_COLUMNS, formatContentLine, groupSeparator, omittedContextLine, omittedMatchLine, type GrepFileHits } from "./grep-format.ts";
import type { GrepPlan } from "./grep-plan.ts";
import { OverrideGlobs, TypeFilter } from "./filters.ts";
import { compileSearchRegex } from "./rust-regex.ts";
import { walkFiles } from "./walk.ts";

/** The JavaScript engine: the same walk and ignore rules as ripgrep, a translated RegExp per line. */
export async function grepWithJavaScript(plan: GrepPlan, signal?: AbortSignal): Promise<GrepFileHits[]> {
  const regex = compileSearchRegex(plan.pattern, { caseInsensitive: plan.caseInsensitive, multiline: plan.multiline });
  const scanner = plan.multiline ? regex : new RegExp(regex.source, `${regex.flags}g`);
  const literal = requiredLiteral(plan);
  const types = plan.type === undefined ? undefined : new TypeFilter(plan.type);
  const hits: GrepFileHits[] = [];
  const search = async (path: string, explicit: boolean) => {
    const data = await readBytes(path);
    if (data === undefined) return; // unreadable or vanished: ripgrep warns on stderr and goes on
    // Decoding is most of the cost: a file without the pattern's literal text is not decoded at all.
    if (literal !== undefined && !data.includes(literal)) return;
    const binary = data.includes(0);
    // ripgrep skips binary files it walks into; a file named explicitly is searched, but its lines are not printed.
    if (binary && (!explicit || plan.mode === "content")) return;
    let text = data.toString("utf8");
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const file = plan.multiline ? searchMultiline(path, text, regex, plan) : searchLines(path, text, regex, scanner, plan);
    if (file !== undefined) hits.push(file);
  };
  if (plan.baseIsFile) {
    await search(plan.base, true);
    return hits;
  }
  const walk = walkFiles({
    base: plan.base,
    overrides: new OverrideGlobs(plan.globs),
    ...(types === undefined ? {} : { types }),
    ...(signal === undefined ? {} : { signal }),
  });
  // Several files are read at once: the walk would otherwise wait on each read in turn.
  const inFlight = new Set<Promise<void>>();
  for await (const path of walk) {
    signal?.throwIfAborted();
    const searching = search(path, false).finally(() => inFlight.delete(searching));
    inFlight.add(searching);
    if (inFlight.size >= READS_IN_FLIGHT) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  signal?.throwIfAborted();
  return hits;
}

const READS_IN_FLIGHT = 16;

// The callback API costs less per call than fs/promises' FileHandle-based readFile.
function readBytes(path: string): Promise<Buffer | undefined> {
  return new Promise((resolve) => readFile(path, (error, data) => resolve(error === null ? data : undefined)));
}

/** The bytes every match must contain, when the pattern is plain text matched case-sensitively. */
function requiredLiteral(plan: GrepPlan): Buffer | undefined {
  if (plan.caseInsensitive || !/^[\w \t"'#%&,\-/:;<=>@`~!]+$/.test(plan.pattern) || plan.pattern.startsWith("(?")) return undefined;
  return Buffer.from(plan.pattern);
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * Finds matching lines without testing every line: a global scan of the whole text proposes the line
 * each match starts on, and the line alone must match too (a whole-text match may run across lines).
 * Any line that matches by itself also matches in the whole text, so none is missed.
 */
function searchLines(path: string, text: string, regex: RegExp, scanner: RegExp, plan: GrepPlan): GrepFileHits | undefined {
  const matches: { index: number; text: string; terminated: boolean }[] = [];
  let lineNumber = 0;
  let counted = 0;
  let position = 0;
  while (position < text.length) {
    scanner.lastIndex = position;
    const match = scanner.exec(text);
    if (match === null) break;
    const lineStart = match.index === 0 ? 0 : text.lastIndexOf("\n", match.index - 1) + 1;
    let lineEnd = text.indexOf("\n", match.index);
    if (lineEnd === -1) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd);
    if (regex.test(line)) {
      for (let newline = text.indexOf("\n", counted); newline !== -1 && newline < lineStart; newline = text.indexOf("\n", newline + 1)) lineNumber += 1;
      counted = lineStart;
      if (plan.mode === "files_with_matches") return { path, count: 1, lines: [] };
      matches.push({ index: lineNumber, text: line, terminated: lineEnd < text.length });
    }
    position = lineEnd + 1;
  }
  if (matches.length === 0) return undefined;
  if (plan.mode === "count") return { path, count: matches.length, lines: [] };
  if (plan.before === 0 && plan.after === 0) {
    return {
      path,
      count: matches.length,
      lines: matches.map((match) => formatContentLine(path, match.index + 1, true, clip(match.text, true, match.terminated), plan.lineNumbers)),
    };
  }
  return {
    path,
    count: matches.length,
    lines: withContext(
      path,
      splitLines(text),
      text.endsWith("\n"),
      matches.map((match) => match.index),
      plan,
    ),
  };
}

function searchMultiline(path: string, text: string, regex: RegExp, plan: GrepPlan): GrepFileHits | undefined {
  const lines = splitLines(text);
  const lineStarts = [0];
  for (let index = text.indexOf("\n"); index !== -1 && index < text.length - 1; index = text.indexOf("\n", index + 1)) lineStarts.push(index + 1);
  const lineAt = (offset: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((lineStarts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const matchLines = new Set<number>();
  let count = 0;
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    if (match[0] === "") {
      regex.lastIndex += 1;
      if (match.index >= text.length) break;
    }
    count += 1;
    if (plan.mode === "files_with_matches") return { path, count: 1, lines: [] };
    const first = lineAt(match.index);
    const last = lineAt(match.index + Math.max(0, match[0].length - 1));
    for (let line = first; line <= last; line += 1) matchLines.add(line);
  }
  if (count === 0) return undefined;
  // With --multiline, ripgrep's --count counts matches, not lines.
  if (plan.mode === "count") return { path, count, lines: [] };
  return {
    path,
    count: matchLines.size,
    lines: withContext(
      path,
      lines,
      text.endsWith("\n"),
      [...matchLines].sort((left, right) => left - right),
      plan,
    ),
  };
}

/** The matched lines with their context, `--` between groups that are not adjacent, as ripgrep prints them. */
function withContext(path: string, lines: readonly string[], endsWithNewline: boolean, matchIndexes: readonly number[], plan: GrepPlan): string[] {
  const isMatch = new Set(matchIndexes);
  const shown = new Set<number>();
  for (const index of matchIndexes) {
    for (let line = Math.max(0, index - plan.before); line <= Math.min(lines.length - 1, index + plan.after); line += 1) shown.add(line);
  }
  const output: string[] = [];
  let previous: number | undefined;
  for (const index of [...shown].sort((left, right) => left - right)) {
    if (previous !== undefined && index !== previous + 1) output.push(groupSeparator);
    const match = isMatch.has(index);
    const text = clip(lines[index] ?? "", match, endsWithNewline || index < lines.length - 1);
    output.push(formatContentLine(path, index + 1, match, text, plan.lineNumbers));
    previous = index;
  }
  return output;
}

/** ripgrep's --max-columns: counted in bytes, the line's terminating newline included. */
function clip(text: string, isMatch: boolean, terminated: boolean): string {
  if (text.length < MAX_COLUMNS / 4 || Buffer.byteLength(text) + (terminated ? 1 : 0) <= MAX_COLUMNS) return text;
  return isMatch ? omittedMatchLine : omittedContextLine;
}
