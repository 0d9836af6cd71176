import { structuredPatch } from "diff";

/** One hunk of a unified diff, as Claude Code stores it in `toolUseResult.structuredPatch`. */
export type PatchHunk = { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] };

const quoteFolds: Record<string, string> = { "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"' };

function foldQuotes(text: string): string {
  return text.replace(/[\u2018\u2019\u201c\u201d]/g, (quote) => quoteFolds[quote] ?? quote);
}

/**
 * The text in `content` that `search` means: itself when present, else the same text with curly
 * quotes where the model typed straight ones (or the reverse). Folding is one character for one,
 * so an index in the folded text is an index in the original.
 */
export function findActualString(content: string, search: string): string | undefined {
  if (search === "") return undefined;
  if (content.includes(search)) return search;
  const index = foldQuotes(content).indexOf(foldQuotes(search));
  return index < 0 ? undefined : content.slice(index, index + search.length);
}

export function countOccurrences(content: string, needle: string): number {
  if (needle === "") return 0;
  return content.split(needle).length - 1;
}

/** Replaces without `String.replace`, whose `$&`-style patterns would corrupt code containing `$`. */
export function replaceText(content: string, oldString: string, newString: string, replaceAll: boolean): string {
  if (oldString === "") return newString;
  if (replaceAll) return content.split(oldString).join(newString);
  const index = content.indexOf(oldString);
  return index < 0 ? content : content.slice(0, index) + newString + content.slice(index + oldString.length);
}

export function buildPatch(filePath: string, before: string, after: string): PatchHunk[] {
  const patch = structuredPatch(filePath, filePath, before, after, undefined, undefined, { context: 3 });
  return patch.hunks.map((hunk) => ({
    oldStart: hunk.oldStart,
    oldLines: hunk.oldLines,
    newStart: hunk.newStart,
    newLines: hunk.newLines,
    lines: hunk.lines,
  }));
}
