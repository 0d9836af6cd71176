import type { FileHandle } from "node:fs/promises";

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

export type TailRepair = "clean" | "terminated" | "truncated";

/**
 * Before appending to an existing transcript: if the file does not end with a newline, an earlier
 * process died mid-line. A tail that is still a whole JSON value only lacked its newline, which is
 * added; anything else was never acknowledged to anyone (the append resolves after the write) and
 * is cut off, so the next line does not glue onto it.
 */
export async function repairTornTail(file: FileHandle, size: number): Promise<TailRepair> {
  const last = Buffer.alloc(1);
  await file.read(last, 0, 1, size - 1);
  if (last[0] === NEWLINE) return "clean";

  const chunks: Buffer[] = [];
  let end = size;
  let lineStart = 0;
  while (end > 0) {
    const start = Math.max(0, end - CHUNK);
    const chunk = Buffer.alloc(end - start);
    await file.read(chunk, 0, chunk.length, start);
    const newline = chunk.lastIndexOf(NEWLINE);
    if (newline >= 0) {
      chunks.unshift(chunk.subarray(newline + 1));
      lineStart = start + newline + 1;
      break;
    }
    chunks.unshift(chunk);
    end = start;
  }
  const partial = Buffer.concat(chunks).toString("utf8");
  if (isWholeJson(partial)) {
    await file.write("\n", null, "utf8");
    return "terminated";
  }
  await file.truncate(lineStart);
  return "truncated";
}

function isWholeJson(text: string): boolean {
  if (text.trim() === "") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
