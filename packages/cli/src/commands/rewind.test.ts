import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCheckpointStore, createJsonlTranscriptStore, loadTranscript } from "@cairn/core/node";
import type { ConversationMessage } from "@cairn/core/schema";
import { runRewindCommand } from "./rewind.ts";

let root: string;
let cairnHome: string;
let workspace: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "cairn-cli-rewind-"));
  cairnHome = join(root, "home");
  workspace = join(root, "ws");
  await mkdir(workspace);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const message = (uuid: string, parentUuid: string | null, type: "user" | "assistant", text: string): ConversationMessage =>
  type === "user"
    ? { type, uuid, parentUuid, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: text } }
    : {
        type,
        uuid,
        parentUuid,
        timestamp: "2026-01-01T00:00:01.000Z",
        message: { id: `msg_${uuid}`, role: "assistant", model: "m", content: [{ type: "text", text }] },
      };

/** A session of two turns; a checkpoint is taken before each prompt's first change, as the runner does. */
async function recordSession(): Promise<void> {
  const sink = createJsonlTranscriptStore({ cairnHome, cwd: workspace, sessionId: "s1", version: "0", fsync: "never" });
  const checkpoints = createCheckpointStore({ cairnHome, workspaceRoot: workspace });
  await writeFile(join(workspace, "app.ts"), "v1\n");
  await sink.appendMessage(message("u1", null, "user", "make it v2"));
  await sink.appendCheckpoint("u1", await checkpoints.snapshot("u1"));
  await writeFile(join(workspace, "app.ts"), "v2\n");
  await sink.appendMessage(message("a1", "u1", "assistant", "done, v2"));
  await sink.appendMessage(message("u2", "a1", "user", "add a helper"));
  await sink.appendCheckpoint("u2", await checkpoints.snapshot("u2"));
  await writeFile(join(workspace, "helper.ts"), "helper\n");
  await sink.appendMessage(message("a2", "u2", "assistant", "added helper.ts"));
  await sink.close();
}

async function run(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runRewindCommand(argv, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: { CAIRN_HOME: cairnHome },
  });
  return { code, stdout, stderr };
}

describe("cairn rewind", () => {
  it("restores the files as they were at the message and forks the conversation there", async () => {
    await recordSession();
    const result = await run(["s1", "a1"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    // a1 has no checkpoint of its own: the files at a1 are the next one's (u2's, taken before u2 changed anything).
    expect(await readFile(join(workspace, "app.ts"), "utf8")).toBe("v2\n");
    expect(existsSync(join(workspace, "helper.ts"))).toBe(false);

    const forkedId = /as session (\S+)/.exec(result.stdout)?.[1];
    expect(forkedId).toBeDefined();
    const forked = await loadTranscript(join(cairnHome, "projects", workspace.replace(/[^a-zA-Z0-9]/g, "-"), `${forkedId}.jsonl`));
    expect(forked.messages.map((entry) => entry.uuid)).toEqual(["u1", "a1"]);
    expect(forked.meta?.forkedFrom).toEqual({ sessionId: "s1", messageUuid: "a1" });
  });

  it("rewinds only the files or only the conversation when asked", async () => {
    await recordSession();
    const files = await run(["s1", "u1", "--mode", "files"]);
    expect(files.code).toBe(0);
    expect(files.stdout).not.toContain("Forked");
    expect(await readFile(join(workspace, "app.ts"), "utf8")).toBe("v1\n");
    expect(existsSync(join(workspace, "helper.ts"))).toBe(false);

    await writeFile(join(workspace, "app.ts"), "v3\n");
    const conversation = await run(["s1", "u2", "--mode", "conversation"]);
    expect(conversation.code).toBe(0);
    expect(conversation.stdout).toContain("Forked");
    expect(await readFile(join(workspace, "app.ts"), "utf8")).toBe("v3\n");
  });

  it("leaves the files alone when no checkpoint was taken after the message", async () => {
    await recordSession();
    const result = await run(["s1", "a2", "--mode", "files"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("nothing to restore");
    expect(await readFile(join(workspace, "helper.ts"), "utf8")).toBe("helper\n");
  });

  it("fails without changing anything for an unknown session or message, and on usage errors", async () => {
    await recordSession();
    expect((await run(["nope", "u1"])).code).toBe(1);
    const unknown = await run(["s1", "no-such-message"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no-such-message");
    expect((await run(["s1", "u1", "--mode", "sideways"])).code).toBe(2);
    expect((await run(["s1"])).code).toBe(2);
    expect(await readFile(join(workspace, "app.ts"), "utf8")).toBe("v2\n");
    expect(await readFile(join(workspace, "helper.ts"), "utf8")).toBe("helper\n");
  });
});
