import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConversationMessage } from "../schema/index.ts";
import { loadTranscript } from "./transcript-reader.ts";

const fixture = (name: string) => fileURLToPath(new URL(`../session/__fixtures__/${name}`, import.meta.url));
const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const line = (value: object) => `${JSON.stringify(value)}\n`;
const contents = (messages: ConversationMessage[]) => messages.map((message) => (message.type === "system" ? undefined : message.message.content));
const user = (n: number, parent: number | null, content: string) => ({
  type: "user",
  uuid: U(n),
  parentUuid: parent === null ? null : U(parent),
  timestamp: "2026-11-29T10:00:00.000Z",
  sessionId: "s",
  message: { role: "user", content },
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cairn-damage-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("loading damaged transcripts", () => {
  it("skips a torn last line and counts malformed middle lines once, in the report", async () => {
    const loaded = await loadTranscript(fixture("damaged.jsonl"));
    expect(loaded.report).toMatchObject({ malformedLines: 3, tornTail: true, invalidMessages: 0 });
    expect(loaded.messages.map((message) => message.uuid)).toEqual([1, 2, 3, 4].map(U));
  });

  it("does not call a bad last line torn when a newline followed it", async () => {
    const path = join(dir, "s.jsonl");
    await writeFile(path, `${line(user(1, null, "a"))}{"broken\n`);
    const loaded = await loadTranscript(path);
    expect(loaded.report).toMatchObject({ malformedLines: 1, tornTail: false });
  });

  it("bridges a parent link to a lost line instead of losing the history before it", async () => {
    const path = join(dir, "s.jsonl");
    await writeFile(path, line(user(1, null, "first")) + line(user(2, 1, "second")) + line(user(4, 3, "fourth")));
    const loaded = await loadTranscript(path);
    expect(loaded.messages.map((message) => message.uuid)).toEqual([1, 2, 4].map(U));
    expect(loaded.report.brokenLinks).toBe(1);
  });

  it("keeps the first of two lines with the same uuid", async () => {
    const path = join(dir, "s.jsonl");
    await writeFile(path, line(user(1, null, "original")) + line(user(1, null, "copy")) + line(user(2, 1, "next")));
    const loaded = await loadTranscript(path);
    expect(contents(loaded.messages)).toEqual(["original", "next"]);
    expect(loaded.report.duplicateUuids).toBe(1);
  });

  it("reads files with CRLF line endings and multi-byte text (offsets are re-checked)", async () => {
    const path = join(dir, "s.jsonl");
    const text = [user(1, null, "héllo — 你好 🙂"), user(2, 1, "second ✓")].map((value) => JSON.stringify(value)).join("\r\n");
    await writeFile(path, `${text}\r\n`);
    const loaded = await loadTranscript(path);
    expect(contents(loaded.messages)).toEqual(["héllo — 你好 🙂", "second ✓"]);
  });

  it("counts a line that is JSON but not a valid message as invalid, and loads the rest", async () => {
    const path = join(dir, "s.jsonl");
    const bad = { ...user(2, 1, "x"), message: { role: "user", content: 42 } };
    await writeFile(path, line(user(1, null, "a")) + line(bad) + line(user(3, 2, "c")));
    const loaded = await loadTranscript(path);
    expect(loaded.messages.map((message) => message.uuid)).toEqual([1, 3].map(U));
    expect(loaded.report.invalidMessages).toBe(1);
  });

  it("loads an empty file as an empty conversation", async () => {
    const path = join(dir, "s.jsonl");
    await writeFile(path, "");
    const loaded = await loadTranscript(path);
    expect(loaded.messages).toEqual([]);
    expect(loaded.report).toMatchObject({ lines: 0, malformedLines: 0, tornTail: false });
  });

  it("stops reading when aborted, before or during the stream", async () => {
    const path = join(dir, "s.jsonl");
    const many = Array.from({ length: 20_000 }, (_, index) => line(user(index + 1, index === 0 ? null : index, "x".repeat(200))));
    await writeFile(path, many.join(""));
    await expect(loadTranscript(path, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
    const controller = new AbortController();
    const loading = loadTranscript(path, { signal: controller.signal });
    controller.abort();
    await expect(loading).rejects.toMatchObject({ name: "AbortError" });
  });
});
