import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AssistantMessage, ConversationMessage } from "../schema/index.ts";
import { exportTranscript } from "./transcript-export.ts";
import { importClaudeCodeTranscript } from "./transcript-import.ts";
import { loadTranscript } from "./transcript-reader.ts";

const fixture = fileURLToPath(new URL("./__fixtures__/claude-code/explore-edit.jsonl", import.meta.url));
let cairnHome: string;
beforeEach(async () => {
  cairnHome = await mkdtemp(join(tmpdir(), "cairn-import-"));
});
afterEach(async () => {
  await rm(cairnHome, { recursive: true, force: true });
});

async function collect(chunks: AsyncIterable<string>): Promise<string> {
  let text = "";
  for await (const chunk of chunks) text += chunk;
  return text;
}

/** What must survive a round trip: the conversation, not the file's chain links. */
const comparable = (messages: ConversationMessage[]) => messages.map(({ parentUuid: _parent, ...rest }) => rest);

describe("importing Claude Code transcripts", () => {
  it("imports explore-edit as a Cairn session with one assistant message per response", async () => {
    const imported = await importClaudeCodeTranscript(fixture, { cairnHome, version: "0.1.0", cwd: "/work/demo", fsync: "never" });
    expect(imported).toMatchObject({ sessionId: "94363ae5-98e2-47ed-9da1-dac87ebf2038", cwd: "/work/demo", messageCount: 10 });
    expect(imported.path).toBe(join(cairnHome, "projects", "-work-demo", "94363ae5-98e2-47ed-9da1-dac87ebf2038.jsonl"));

    const original = await loadTranscript(fixture);
    const loaded = await loadTranscript(imported.path);
    expect(loaded.meta?.importedFrom).toEqual({ format: "claude-code", path: fixture, sessionId: "94363ae5-98e2-47ed-9da1-dac87ebf2038" });
    expect(loaded.report).toMatchObject({ malformedLines: 0, unknownLines: 0, brokenLinks: 0 });
    expect(comparable(loaded.messages)).toEqual(comparable(original.messages));
    const responses = loaded.messages.filter((message): message is AssistantMessage => message.type === "assistant");
    expect(new Set(responses.map((message) => message.message.id)).size).toBe(responses.length);
  });

  it("takes the working directory from the transcript and refuses to import the same session twice", async () => {
    const imported = await importClaudeCodeTranscript(fixture, { cairnHome, version: "0", fsync: "never" });
    expect(imported.cwd).toBe("{{WS}}");
    await expect(importClaudeCodeTranscript(fixture, { cairnHome, version: "0" })).rejects.toMatchObject({ code: "session-exists" });
    const again = await importClaudeCodeTranscript(fixture, { cairnHome, version: "0", sessionId: "copy", fsync: "never" });
    expect(again.sessionId).toBe("copy");
  });
});

describe("exporting sessions", () => {
  it("round-trips: export as JSONL, import that, same conversation", async () => {
    const imported = await importClaudeCodeTranscript(fixture, { cairnHome, version: "0", cwd: "/work/demo", fsync: "never" });
    const jsonl = await collect(exportTranscript(imported.sessionId, "jsonl", { cairnHome }));
    const lines = jsonl
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: "cairn-session", sessionId: imported.sessionId });
    expect(lines.slice(1).every((line) => line.sessionId === imported.sessionId && line.cwd === "/work/demo")).toBe(true);

    const exportedFile = join(cairnHome, "exported.jsonl");
    await writeFile(exportedFile, jsonl);
    const reimported = await importClaudeCodeTranscript(exportedFile, { cairnHome, version: "0", sessionId: "again", fsync: "never" });
    const before = await loadTranscript(imported.path);
    const after = await loadTranscript(reimported.path);
    expect(comparable(after.messages)).toEqual(comparable(before.messages));
  });

  it("renders Markdown with every tool call and result, fenced", async () => {
    const imported = await importClaudeCodeTranscript(fixture, { cairnHome, version: "0", cwd: "/work/demo", fsync: "never" });
    const markdown = await collect(exportTranscript(imported.sessionId, "markdown", { cairnHome }));
    expect(markdown.startsWith("# Find the TODOs in this project")).toBe(true);
    expect(markdown.match(/\*\*Tool call\*\*/g)).toHaveLength(5);
    expect(markdown.match(/\*\*Tool result\*\*/g)).toHaveLength(5);
    expect(markdown).toContain('```json\n{\n  "pattern": "src/**/*.ts"\n}\n```');
  });

  it("fails clearly for an unknown session", async () => {
    await expect(collect(exportTranscript("nope", "jsonl", { cairnHome }))).rejects.toMatchObject({ code: "session-not-found" });
  });
});
