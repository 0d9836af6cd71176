import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import type { AppRouter } from "@cairn/api";
import { eventually, startApiFixture, type ApiFixture } from "./api-harness.ts";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const GREET = 'export function greet(name: string): string {\n  return "Hello, " + name;\n}\n';

async function idle(fixture: ApiFixture, sessionId: string): Promise<void> {
  await eventually(async () => expect((await fixture.client.session.get.query({ sessionId })).running).toBe(false), 20_000);
}

/** A session whose agent rewrote src/greet.ts with Write and made notes.txt with Bash. */
async function sessionWithChanges(fixture: ApiFixture): Promise<string> {
  const greet = join(fixture.root, "src", "greet.ts");
  fixture.sim.setScenario({
    turns: [
      { content: [{ type: "tool_use", name: "Read", input: { file_path: greet } }] },
      {
        content: [
          {
            type: "tool_use",
            name: "Write",
            input: { file_path: greet, content: "// greeting\nexport function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n" },
          },
          { type: "tool_use", name: "Bash", input: { command: "echo made by bash > notes.txt" } },
        ],
      },
      text("done"),
    ],
  });
  const { sessionId } = await fixture.client.session.create.mutate({ permissionMode: "acceptEdits" });
  await fixture.client.settings.addRule.mutate({ scope: "session", sessionId, behavior: "allow", rule: "Bash" });
  await fixture.client.session.send.mutate({ sessionId, prompt: "tidy greet" });
  await idle(fixture, sessionId);
  return sessionId;
}

describe("changes panel and review", () => {
  it("lists every file the session changed (Bash too), reverts one hunk on disk and tells the model in its next request", async () => {
    await using fixture = await startApiFixture({ checkpoints: true, files: { "src/greet.ts": GREET, "README.md": "# test\n" } });
    const { client } = fixture;
    const sessionId = await sessionWithChanges(fixture);

    const changes = await client.changes.list.query({ sessionId });
    expect(changes.baseline).toMatch(/^[0-9a-f]{40}$/);
    expect(changes.files.map((file) => [file.path, file.status])).toEqual([
      ["notes.txt", "added"],
      ["src/greet.ts", "modified"],
    ]);
    const greet = changes.files.find((file) => file.path === "src/greet.ts")!;
    expect(greet.before).toBe(GREET);
    expect(greet.hunks.map((hunk) => hunk.afterLines)).toEqual([["// greeting"], ["  return `Hello, ${name}!`;"]]);

    await client.changes.revertHunk.mutate({ sessionId, path: "src/greet.ts", hunkIndex: 1, expectedSha256: greet.sha256! });
    expect(await readFile(join(fixture.root, "src", "greet.ts"), "utf8")).toBe(`// greeting\n${GREET}`);

    fixture.sim.setScenario({ turns: [text("noted")] });
    await client.session.send.mutate({ sessionId, prompt: "anything else?" });
    await idle(fixture, sessionId);
    const lastRequest = JSON.stringify(fixture.sim.requests.at(-1)?.body);
    expect(lastRequest).toContain("The user reverted one of this session's changes to src/greet.ts");
  });

  it("refuses a revert when the file changed since the panel showed it, and overwrites nothing", async () => {
    await using fixture = await startApiFixture({ checkpoints: true, files: { "src/greet.ts": GREET } });
    const { client } = fixture;
    const sessionId = await sessionWithChanges(fixture);
    const greet = (await client.changes.list.query({ sessionId })).files.find((file) => file.path === "src/greet.ts")!;
    const path = join(fixture.root, "src", "greet.ts");
    await writeFile(path, "// changed by someone else\n");

    const refused = await client.changes.revertFile.mutate({ sessionId, path: "src/greet.ts", expectedSha256: greet.sha256 }).catch((error: unknown) => error);
    if (!(refused instanceof TRPCClientError)) throw new Error("the revert was not refused");
    const failure = refused as TRPCClientError<AppRouter>;
    expect(failure.message).toContain("changed since the Changes panel showed it");
    expect(failure.data?.cairn?.code).toBe("file_conflict");
    expect(await readFile(path, "utf8")).toBe("// changed by someone else\n");

    // With the current version named, the whole file goes back; a file the session created is removed.
    const current = (await client.changes.list.query({ sessionId })).files;
    await client.changes.revertFile.mutate({ sessionId, path: "src/greet.ts", expectedSha256: current.find((file) => file.path === "src/greet.ts")!.sha256 });
    await client.changes.revertFile.mutate({ sessionId, path: "notes.txt", expectedSha256: current.find((file) => file.path === "notes.txt")!.sha256 });
    expect(await readFile(path, "utf8")).toBe(GREET);
    expect((await client.changes.list.query({ sessionId })).files).toEqual([]);
  });

  it("sends a review as one user message with file:line, the code on the line and the comment", async () => {
    await using fixture = await startApiFixture({ checkpoints: true, files: { "src/greet.ts": GREET } });
    const { client } = fixture;
    const sessionId = await sessionWithChanges(fixture);
    fixture.sim.setScenario({ turns: [text("will do")] });
    await client.review.send.mutate({
      sessionId,
      comments: [
        { path: "src/greet.ts", line: 3, text: "Drop the exclamation mark." },
        { path: "src/greet.ts", line: 1, text: "No banner comments." },
      ],
    });
    await idle(fixture, sessionId);
    const sent = JSON.stringify(fixture.sim.requests.at(-1)?.body);
    expect(sent).toContain("src/greet.ts:1\\n    // greeting\\n   No banner comments.");
    expect(sent).toContain("src/greet.ts:3\\n      return `Hello, ${name}!`;\\n   Drop the exclamation mark.");
    await expect(client.review.send.mutate({ sessionId, comments: [] })).rejects.toThrow(/add a comment first/);
    await expect(client.review.send.mutate({ sessionId, comments: [{ path: "../outside.txt", line: 1, text: "x" }] })).rejects.toThrow(/inside the workspace/);
  });

  it("previews a files rewind before anything changes, and undoes a rewind with its backup", async () => {
    await using fixture = await startApiFixture({ checkpoints: true, files: { "src/greet.ts": GREET } });
    const { client } = fixture;
    const sessionId = await sessionWithChanges(fixture);
    const prompt = (await client.session.get.query({ sessionId })).messages.find((message) => message.type === "user")!;
    const preview = await client.session.rewindPreview.query({ sessionId, messageUuid: prompt.uuid });
    expect(preview.files).toEqual([
      { path: "notes.txt", status: "added" },
      { path: "src/greet.ts", status: "modified" },
    ]);
    const changed = await readFile(join(fixture.root, "src", "greet.ts"), "utf8");
    expect(changed).not.toBe(GREET);

    const rewound = await client.session.rewind.mutate({ sessionId, messageUuid: prompt.uuid, mode: "files" });
    expect(await readFile(join(fixture.root, "src", "greet.ts"), "utf8")).toBe(GREET);
    await client.session.restoreCheckpoint.mutate({ commit: rewound.backupCheckpoint! });
    expect(await readFile(join(fixture.root, "src", "greet.ts"), "utf8")).toBe(changed);
    expect(await readFile(join(fixture.root, "notes.txt"), "utf8")).toBe("made by bash\n");
  });
});
