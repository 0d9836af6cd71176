import { readFile } from "node:fs/promises";
import { MAX_COLUMNS, omittedContextLine, omittedMatchLine, type GrepFileHits, type GrepLine } from "./grep-format.ts";
import type { GrepPlan } from "./grep-plan.ts";
import { OverrideGlobs, TypeFilter } from "./filters.ts";
import { compileSearchRegex } from "./rust-regex.ts";
import { walkFiles } from "./walk.ts";

/** The JavaScript engine: the same walk and ignore rules as ripgrep, a translated RegExp per line. */
export async function grepWithJavaScript(plan: GrepPlan, signal?: AbortSignal): Promise<GrepFileHits[]> {
  const regex = compileSearchRegex(plan.pattern, { caseInsensitive: plan.caseInsensitive, multiline: plan.multiline });
  const types = plan.type === undefined ? undefined : new TypeFilter(plan.type);
  const hits: GrepFileHits[] = [];
  const search = async (path: string, explicit: boolean) => {
    let data: Buffer;
    try {
      data = await readFile(path);
    } catch {
      return; // unreadable or vanished: ripgrep warns on stderr and goes on
    }
    const binary = data.includes(0);
    // ripgrep skips binary files it walks into; a file named explicitly is searched, but its lines are not printed.
    if (binary && (!explicit || plan.mode === "content")) return;
    let text = data.toString("utf8");
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const file = plan.multiline ? searchMultiline(path, text, regex, plan) : searchLines(path, text, regex, plan);
    if (file !== undefined) hits.push(file);
  };
  if (plan.baseIsFile) {
    await search(plan.base, true);
    return hits;
  }
  const walk = walkFiles({ base: plan.base, overrides: new OverrideGlobs(plan.globs), ...(types === undefined ? {} : { types }), ...(signal === undefined ? {} : { signal }) });
  for await (const path of walk) {
    signal?.throwIfAborted();
    await search(path, false);
  }
  return hits;
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

function searchLines(path: string, text: string, regex: RegExp, plan: GrepPlan): GrepFileHits | undefined {
  const lines = splitLines(text);
  const matchIndexes: number[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    if (!regex.test(lines[index] ?? "")) continue;
    if (plan.mode === "files_with_matches") return { path, count: 1, lines: [] };
    matchIndexes.push(index);
  }
  if (matchIndexes.length === 0) return undefined;
  if (plan.mode === "count") return { path, count: matchIndexes.length, lines: [] };
  return { path, count: matchIndexes.length, lines: withContext(lines, matchIndexes, plan) };
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
  return { path, count, lines: withContext(lines, [...matchLines].sort((left, right) => left - right), plan) };
}

function withContext(lines: readonly string[], matchIndexes: readonly number[], plan: GrepPlan): GrepLine[] {
  const isMatch = new Set(matchIndexes);
  const shown = new Set<number>();
  for (const index of matchIndexes) {
    for (let line = Math.max(0, index - plan.before); line <= Math.min(lines.length - 1, index + plan.after); line += 1) shown.add(line);
  }
  return [...shown]
    .sort((left, right) => left - right)
    .map((index) => {
      const match = isMatch.has(index);
      const text = lines[index] ?? "";
      const tooLong = text.length > MAX_COLUMNS / 4 && Buffer.byteLength(text) > MAX_COLUMNS;
      return { number: index + 1, text: tooLong ? (match ? omittedMatchLine : omittedContextLine) : text, isMatch: match };
    });
}
