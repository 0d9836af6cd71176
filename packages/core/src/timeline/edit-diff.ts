import { diffLines } from "diff";
import { asArray, asRecord, asString } from "./line-fields.ts";

export type DiffLine = { type: "add" | "remove" | "same"; text: string };
export type EditDiff = { path: string; note: string | null; lines: DiffLine[] };

/** Inputs larger than this are shown without a line diff (the diff would cost more than it shows). */
const MAX_DIFF_CHARS = 200_000;

/**
 * The change an Edit, MultiEdit or Write call asked for, as lines: old_string → new_string for
 * edits (the file around them is not in the transcript), all lines added for Write. Null for
 * other tools or an input of the wrong shape.
 */
export function editDiff(toolName: string, input: unknown): EditDiff | null {
  const fields = asRecord(input);
  const path = asString(fields?.file_path);
  if (!fields || path === undefined) return null;
  if (toolName === "Write") {
    const content = asString(fields.content) ?? "";
    return {
      path,
      note: "Written whole: the file's earlier content is not in the transcript.",
      lines: splitLines(content).map((text) => ({ type: "add", text })),
    };
  }
  if (toolName === "Edit") {
    const note = fields.replace_all === true ? "Every occurrence replaced." : null;
    return { path, note, lines: lineDiff(asString(fields.old_string) ?? "", asString(fields.new_string) ?? "") };
  }
  if (toolName === "MultiEdit") {
    const lines: DiffLine[] = [];
    asArray(fields.edits).forEach((item, position) => {
      const edit = asRecord(item);
      if (!edit) return;
      if (position > 0) lines.push({ type: "same", text: "⋯" });
      lines.push(...lineDiff(asString(edit.old_string) ?? "", asString(edit.new_string) ?? ""));
    });
    return { path, note: null, lines };
  }
  return null;
}

function lineDiff(before: string, after: string): DiffLine[] {
  if (before.length + after.length > MAX_DIFF_CHARS) {
    return [...splitLines(before).map((text): DiffLine => ({ type: "remove", text })), ...splitLines(after).map((text): DiffLine => ({ type: "add", text }))];
  }
  const lines: DiffLine[] = [];
  for (const change of diffLines(before, after)) {
    const type = change.added ? "add" : change.removed ? "remove" : "same";
    for (const text of splitLines(change.value)) lines.push({ type, text });
  }
  return lines;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
