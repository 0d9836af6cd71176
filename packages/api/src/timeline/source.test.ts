import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { projectDirName } from "@cairn/core/schema";
import { ApiError } from "../router/errors.ts";
import { loadTimelineSource } from "./source.ts";

const workspaceRoot = "/work/space";
const sessionId = "s-timeline";
const ts = (second: number) => `2026-11-29T10:00:${String(second).padStart(2, "0")}.000Z`;

const meta = { type: "cairn-session", sessionId, timestamp: ts(0), cwd: workspaceRoot, cairnSchema: 1, title: "Find the tests" };
const prompt = { type: "user", uuid: "u1", parentUuid: null, sessionId, timestamp: ts(1), message: { role: "user", content: "find the tests" } };
const call = {
  type: "assistant",
  uuid: "a1",
  parentUuid: "u1",
  sessionId,
  timestamp: ts(2),
  message: {
    id: "m1",
    role: "assistant",
    model: "m",
    content: [{ type: "tool_use", id: "t1", name: "Agent", input: { description: "Find tests", prompt: "look" } }],
  },
};
const result = {
  type: "user",
  uuid: "r1",
  parentUuid: "a1",
  sessionId,
  timestamp: ts(9),
  message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "3 tests" }] },
  toolUseResult: { agentId: "aagent1", status: "completed" },
};
const later = { type: "user", uuid: "u2", parentUuid: "r1", sessionId, timestamp: ts(10), message: { role: "user", content: "thanks" } };
const tombstone = { type: "tombstone", sessionId, timestamp: ts(11), tombstoneOf: "u2", reason: "rewound" };
const sideLine = {
  type: "user",
  uuid: "s1",
  parentUuid: null,
  sessionId,
  isSidechain: true,
  agentId: "aagent1",
  timestamp: ts(3),
  message: { role: "user", content: "look" },
};

let cairnHome: string;
beforeEach(async () => {
  cairnHome = await mkdtemp(join(tmpdir(), "cairn-timeline-source-"));
  const directory = join(cairnHome, "projects", projectDirName(workspaceRoot));
  await mkdir(join(directory, sessionId, "subagents"), { recursive: true });
  const lines = [meta, prompt, call, result, later, tombstone].map((line) => JSON.stringify(line));
  // A damaged line in the middle and a torn last line.
  await writeFile(join(directory, `${sessionId}.jsonl`), `${lines.slice(0, 3).join("\n")}\n{"type":"user",\n${lines.slice(3).join("\n")}\n{"type":"assis`);
  await writeFile(join(directory, sessionId, "subagents", "agent-aagent1.jsonl"), `${JSON.stringify(sideLine)}\n`);
  await writeFile(
    join(directory, sessionId, "subagents", "agent-aagent1.meta.json"),
    JSON.stringify({ agentType: "general-purpose", description: "Find tests in src" }),
  );
  await writeFile(join(directory, sessionId, "subagents", "notes.txt"), "not a transcript");
});
afterEach(async () => {
  await rm(cairnHome, { recursive: true, force: true });
});

describe("loadTimelineSource", () => {
  it("reads every line in file order with tombstones, the sidechains with their descriptions, and counts damage", async () => {
    const source = await loadTimelineSource({ cairnHome, workspaceRoot }, sessionId);
    expect(source).toMatchObject({ sessionId, title: "Find the tests", cwd: workspaceRoot, imported: false });
    expect(source.lines.map((line) => line.type)).toEqual(["cairn-session", "user", "assistant", "user", "user", "tombstone"]);
    expect(source.sidechains).toEqual([{ agentId: "aagent1", description: "Find tests in src", lines: [expect.objectContaining({ uuid: "s1" })] }]);
    expect(source.damage).toEqual({ malformedLines: 1, tornTail: true, skippedLines: 0 });
  });

  it("keeps only the given messages (a pinned share): later lines, their tombstones and unspawned sidechains go", async () => {
    const pinned = await loadTimelineSource({ cairnHome, workspaceRoot }, sessionId, { messageUuids: new Set(["u1", "a1"]) });
    expect(pinned.lines.map((line) => line.type)).toEqual(["cairn-session", "user", "assistant"]);
    expect(pinned.sidechains).toEqual([]);
    const withResult = await loadTimelineSource({ cairnHome, workspaceRoot }, sessionId, { messageUuids: new Set(["u1", "a1", "r1"]) });
    expect(withResult.sidechains.map((sidechain) => sidechain.agentId)).toEqual(["aagent1"]);
  });

  it("says a session that is not there is not found", async () => {
    const missing = await loadTimelineSource({ cairnHome, workspaceRoot }, "nope").catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ApiError);
    expect((missing as ApiError).code).toBe("session_not_found");
  });
});
