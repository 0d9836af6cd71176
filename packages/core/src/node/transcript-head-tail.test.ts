import { open as openFile, mkdtemp, mkdir, rm, writeFile, copyFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantReply, userPrompt } from "../session/__fixtures__/builders.ts";
import { readHeadAndTail } from "./transcript-head-tail.ts";
import { listSessions } from "./transcript-list.ts";
import { createJsonlTranscriptStore } from "./transcript-store.ts";

const claudeCodeFixtures = fileURLToPath(new URL("./__fixtures__/claude-code/", import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cairn-headtail-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const line = (value: object) => `${JSON.stringify(value)}\n`;

describe("readHeadAndTail", () => {
  it("summarises a real Claude Code transcript: first prompt as title, last activity, exact count when small", async () => {
    const summary = await readHeadAndTail(join(claudeCodeFixtures, "explore-edit.jsonl"));
    expect(summary.firstPrompt).toBe("Find the TODOs in this project, fix the division-by-zero TODO in src/math.ts, then list the top-level files.");
    expect(summary.title).toBe(summary.firstPrompt);
    expect(summary.cwd).toBe("{{WS}}");
    expect(summary.recordedSessionId).toBe("94363ae5-98e2-47ed-9da1-dac87ebf2038");
    expect(summary.sessionId).toBe("explore-edit");
    expect(summary.lastActivityAt).toBe("2026-11-29T16:06:10.512Z");
    // 1 prompt + 4 responses (per-block lines counted once) + 5 tool results.
    expect(summary.messageEstimate).toBe(10);
  });

  it("prefers the meta title, and a Claude Code summary line over the first prompt", async () => {
    const withMeta = join(dir, "a.jsonl");
    await writeFile(
      withMeta,
      line({ type: "cairn-session", sessionId: "a", timestamp: "t", cwd: "/w", cairnSchema: 1, title: "Named" }) + line(userPrompt(1, null, "prompt")),
    );
    expect((await readHeadAndTail(withMeta)).title).toBe("Named");
    const withSummary = join(dir, "b.jsonl");
    await writeFile(withSummary, line({ type: "summary", summary: "Fixing the parser", leafUuid: "x" }) + line(userPrompt(1, null, "prompt")));
    expect((await readHeadAndTail(withSummary)).title).toBe("Fixing the parser");
  });

  it("reads only the two ends of a huge file", async () => {
    const path = join(dir, "huge.jsonl");
    const head =
      line({ type: "cairn-session", sessionId: "huge", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w", cairnSchema: 1 }) +
      line(userPrompt(1, null, "the first prompt"));
    const tail = line(assistantReply(2, 1, "the last answer"));
    const size = 8 * 1024 ** 3;
    // A sparse 8 GiB file: reading all of it would take seconds; the ends take two small reads.
    const handle = await openFile(path, "w");
    try {
      await handle.write(head, 0, "utf8");
      await handle.truncate(size);
      await handle.write(`\n${tail}`, size - Buffer.byteLength(tail) - 1, "utf8");
    } finally {
      await handle.close();
    }
    const started = performance.now();
    const summary = await readHeadAndTail(path, { headBytes: 4096, tailBytes: 4096 });
    const elapsed = performance.now() - started;
    expect(summary.firstPrompt).toBe("the first prompt");
    expect(summary.lastActivityAt).toBe(assistantReply(2, 1, "").timestamp);
    expect(summary.sizeBytes).toBe(size);
    expect(summary.messageEstimate).toBeGreaterThan(1_000_000);
    expect(elapsed).toBeLessThan(1000);
  });
});

describe("listSessions", () => {
  it("lists a project's sessions, most recently active first", async () => {
    const cairnHome = join(dir, "home");
    for (const [index, sessionId] of ["older", "newer"].entries()) {
      const store = createJsonlTranscriptStore({ cairnHome, cwd: "/w", sessionId, version: "0", fsync: "never" });
      await store.appendMessage({ ...userPrompt(1, null, `prompt ${sessionId}`), timestamp: `2026-0${index + 1}-01T00:00:00.000Z` });
      await store.close();
    }
    await mkdir(join(cairnHome, "projects", "-other"), { recursive: true });
    await copyFile(join(claudeCodeFixtures, "permission-deny.jsonl"), join(cairnHome, "projects", "-other", "cc.jsonl"));

    const mine = await listSessions(cairnHome, "/w");
    expect(mine.map((session) => [session.sessionId, session.title])).toEqual([
      ["newer", "prompt newer"],
      ["older", "prompt older"],
    ]);
    const all = await listSessions(cairnHome);
    expect(all.map((session) => session.sessionId).sort()).toEqual(["cc", "newer", "older"]);
    expect(await listSessions(join(dir, "nowhere"))).toEqual([]);
  });
});
