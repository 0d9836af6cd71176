import { appendFile, mkdtemp, readFile, rm, stat, unlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createJsonlTranscriptStore } from "@cairn/core/node";
import type { UserMessage } from "@cairn/core/schema";
import { openSessionIndex, type SessionIndex } from "./session-index.ts";

let cairnHome: string;
let index: SessionIndex | undefined;
beforeEach(async () => {
  cairnHome = await mkdtemp(join(tmpdir(), "cairn-index-"));
});
afterEach(async () => {
  index?.close();
  index = undefined;
  await rm(cairnHome, { recursive: true, force: true });
});

const prompt = (uuid: string, text: string, second: number): UserMessage => ({
  type: "user",
  uuid,
  parentUuid: null,
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
  message: { role: "user", content: text },
});

async function session(cwd: string, sessionId: string, text: string, second: number): Promise<string> {
  const store = createJsonlTranscriptStore({ cairnHome, cwd, sessionId, version: "0", fsync: "never" });
  await store.appendMessage(prompt(`${sessionId}-1`, text, second));
  await store.close();
  return store.path;
}

describe("the SQLite session index", () => {
  it("lists sessions newest first and searches titles and first prompts", async () => {
    await session("/w", "a", "Fix the parser", 1);
    await session("/w", "b", "Add 100% coverage_for the lexer", 2);
    await session("/other", "c", "Parser docs", 3);
    index = openSessionIndex({ cairnHome });

    const all = await index.list();
    expect(all.map((row) => row.sessionId)).toEqual(["c", "b", "a"]);
    expect(all[2]).toMatchObject({ cwd: "/w", title: "Fix the parser", firstPrompt: "Fix the parser", messageEstimate: 1, imported: false });
    expect((await index.list({ cwd: "/w" })).map((row) => row.sessionId)).toEqual(["b", "a"]);
    expect((await index.list({ search: "parser" })).map((row) => row.sessionId)).toEqual(["c", "a"]);
    // LIKE wildcards in the search text are literal.
    expect((await index.list({ search: "100%" })).map((row) => row.sessionId)).toEqual(["b"]);
    expect((await index.list({ search: "p_rser" })).map((row) => row.sessionId)).toEqual([]);
    expect((await index.list({ search: "e_f" })).map((row) => row.sessionId)).toEqual(["b"]);
    expect((await index.list({ limit: 1, offset: 1 })).map((row) => row.sessionId)).toEqual(["b"]);
  });

  it("re-reads only files whose size or mtime changed, and drops rows of deleted files", async () => {
    const first = await session("/w", "a", "first", 1);
    await session("/w", "b", "second", 2);
    index = openSessionIndex({ cairnHome });
    expect(await index.refresh()).toEqual({ files: 2, reindexed: 2, removed: 0 });
    expect(await index.refresh()).toEqual({ files: 2, reindexed: 0, removed: 0 });

    await appendFile(first, `${JSON.stringify({ ...prompt("a-2", "later", 9), sessionId: "a" })}\n`);
    expect(await index.refresh()).toEqual({ files: 2, reindexed: 1, removed: 0 });
    expect(index.query()[0]).toMatchObject({ sessionId: "a", updatedAt: "2026-01-01T00:00:09.000Z", messageEstimate: 2 });

    await unlink(first);
    expect(await index.refresh()).toEqual({ files: 1, reindexed: 0, removed: 1 });
    expect(index.query().map((row) => row.sessionId)).toEqual(["b"]);
  });

  it("notices a rewrite that keeps the size when the mtime moves", async () => {
    const path = await session("/w", "a", "aaaa", 1);
    index = openSessionIndex({ cairnHome });
    await index.refresh();
    const before = await stat(path);
    await writeFile(path, (await readFile(path, "utf8")).replace("aaaa", "bbbb"));
    await utimes(path, before.atime, new Date(before.mtimeMs + 5000));
    await index.refresh();
    expect(index.query()[0]!.title).toBe("bbbb");
  });

  it("is rebuilt from the transcripts after its database is deleted or unreadable", async () => {
    await session("/w", "a", "first", 1);
    const dbPath = join(cairnHome, "session-index.sqlite");
    index = openSessionIndex({ cairnHome });
    await index.refresh();
    index.close();

    for (const suffix of ["", "-wal", "-shm"]) await rm(`${dbPath}${suffix}`, { force: true });
    index = openSessionIndex({ cairnHome });
    expect(index.query()).toEqual([]);
    expect((await index.list()).map((row) => row.sessionId)).toEqual(["a"]);
    index.close();

    for (const suffix of ["", "-wal", "-shm"]) await rm(`${dbPath}${suffix}`, { force: true });
    await writeFile(dbPath, "this is not a database, just text that is long enough to have a header".repeat(20));
    index = openSessionIndex({ cairnHome });
    expect((await index.list()).map((row) => row.sessionId)).toEqual(["a"]);
  });
});
