import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forEachLine } from "./transcript-reader.ts";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "cairn-lines-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function linesOf(content: string | Buffer, start = 0): Promise<Array<{ text: string; offset: number; byteLength: number }>> {
  const path = join(directory, "t.jsonl");
  await writeFile(path, content);
  const seen: Array<{ text: string; offset: number; byteLength: number }> = [];
  await forEachLine(await open(path, "r"), undefined, (text, offset, byteLength) => void seen.push({ text, offset, byteLength }), start);
  return seen;
}

describe("forEachLine", () => {
  it("gives each line with its exact byte offset, multi-byte characters, CRLF endings and a last line without a newline", async () => {
    const content = 'a\n{"é":"日本"}\r\n\nlast';
    const seen = await linesOf(content);
    expect(seen.map((line) => line.text)).toEqual(["a", '{"é":"日本"}', "", "last"]);
    const bytes = Buffer.from(content);
    for (const line of seen) {
      // The text sits at its offset; offset + byteLength + 1 is where the next line starts.
      expect(
        bytes
          .subarray(line.offset, line.offset + line.byteLength)
          .toString("utf8")
          .replace(/\r$/, ""),
      ).toBe(line.text);
    }
    expect(seen.map((line) => line.offset)).toEqual([0, 2, 2 + Buffer.byteLength('{"é":"日本"}\r') + 1, bytes.length - 4]);
  });

  it("reads lines longer than its read chunk and characters cut by a chunk's end, from any start offset", async () => {
    const long = "x".repeat(3 * 1024 * 1024);
    // A three-byte character placed across the first 1 MiB boundary.
    const cut = `${"y".repeat(1024 * 1024 - 1)}€z`;
    const content = `${long}\n${cut}\nend\n`;
    const seen = await linesOf(content);
    expect(seen.map((line) => line.text.length)).toEqual([long.length, cut.length, 3]);
    expect(seen[1]!.text.endsWith("€z")).toBe(true);
    const fromSecond = await linesOf(content, long.length + 1);
    expect(fromSecond.map((line) => [line.text.slice(-2), line.offset])).toEqual([
      ["€z", long.length + 1],
      ["nd", long.length + 1 + Buffer.byteLength(cut) + 1],
    ]);
  });

  it("stops when the visitor says so and closes the file", async () => {
    const path = join(directory, "stop.jsonl");
    await writeFile(path, "1\n2\n3\n");
    const file = await open(path, "r");
    const seen: string[] = [];
    await forEachLine(file, undefined, (text) => {
      seen.push(text);
      return text === "2";
    });
    expect(seen).toEqual(["1", "2"]);
    await expect(file.stat()).rejects.toThrow();
  });
});
