import { diffLines } from "diff";
import type { LineHunk } from "./review-types.ts";

type Token = { text: string; kind: "same" | "removed" | "added" };

/** Splits into lines that keep their "\n", so joining them gives the text back exactly. */
function linesOf(value: string): string[] {
  return value.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function tokensOf(before: string, after: string): Token[] {
  return diffLines(before, after).flatMap((part) =>
    linesOf(part.value).map((text): Token => ({ text, kind: part.added ? "added" : part.removed ? "removed" : "same" })),
  );
}

/** The changed runs of lines, top to bottom. */
export function lineHunks(before: string, after: string): LineHunk[] {
  const hunks: LineHunk[] = [];
  let beforeLine = 0;
  let afterLine = 0;
  let open: LineHunk | undefined;
  for (const token of tokensOf(before, after)) {
    if (token.kind === "same") {
      open = undefined;
      beforeLine++;
      afterLine++;
      continue;
    }
    if (!open) {
      open = { index: hunks.length, beforeStart: beforeLine + 1, beforeLines: [], afterStart: afterLine + 1, afterLines: [] };
      hunks.push(open);
    }
    if (token.kind === "removed") {
      open.beforeLines.push(stripNewline(token.text));
      beforeLine++;
    } else {
      open.afterLines.push(stripNewline(token.text));
      afterLine++;
    }
  }
  for (const hunk of hunks) {
    if (hunk.beforeLines.length === 0) hunk.beforeStart -= 1;
    if (hunk.afterLines.length === 0) hunk.afterStart -= 1;
  }
  return hunks;
}

/** `after` with hunk `index` put back as it was in `before`; every other change stays. */
export function revertHunk(before: string, after: string, index: number): string {
  let current = -1;
  let inHunk = false;
  const output: string[] = [];
  for (const token of tokensOf(before, after)) {
    if (token.kind === "same") {
      inHunk = false;
      output.push(token.text);
      continue;
    }
    if (!inHunk) {
      inHunk = true;
      current++;
    }
    const reverting = current === index;
    if ((token.kind === "removed" && reverting) || (token.kind === "added" && !reverting)) output.push(token.text);
  }
  if (index < 0 || index > current) throw new RangeError(`No hunk ${index}: the file has ${current + 1}`);
  return output.join("");
}

function stripNewline(line: string): string {
  return line.endsWith("\n") ? line.slice(0, -1) : line;
}
