import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { startServer, type AppRouter } from "@cairn/api";
import { apiClient, eventually, startApiFixture, type ApiFixture } from "./api-harness.ts";
import { localWorkerScript } from "../support/cli.ts";

const ORIGINAL = "one\ntwo\nthree\n";
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const bash = (command: string) => ({ content: [{ type: "tool_use" as const, name: "Bash", input: { command } }] });

const git = (cwd: string, args: string[]) => execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@t", ...args], { cwd }).toString();

async function idle(client: ApiFixture["client"], sessionId: string): Promise<void> {
  await eventually(async () => expect((await client.session.get.query({ sessionId })).running).toBe(false), 30_000);
}

async function failureOf(work: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  const failure = await work.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(failure instanceof TRPCClientError)) throw new Error(`expected a refusal, got ${String(failure)}`);
  return failure as TRPCClientError<AppRouter>;
}

/** The last tool result of a session, as text. */
async function lastToolResult(client: ApiFixture["client"], sessionId: string): Promise<string> {
  const messages = (await client.session.get.query({ sessionId })).messages;
  const results = messages.flatMap((message) =>
    message.type === "user" && Array.isArray(message.message.content) ? message.message.content.filter((block) => block.type === "tool_result") : [],
  );
  return JSON.stringify(results.at(-1));
}

describe("worktree sessions", () => {
  it("refuses a worktree outside a git repository with a clear message, then two sessions edit the same file in parallel, one merges back, the other conflicts and is discarded", async () => {
    await using fixture = await startApiFixture({ checkpoints: true, files: { "a.txt": ORIGINAL } });
    const { client, root } = fixture;

    const notGit = await failureOf(client.worktree.create.mutate());
    expect(notGit.data?.cairn?.code).toBe("not_a_repository");
    expect(notGit.message).toContain("Run git init");
    expect(existsSync(join(fixture.cairnHome, "worktrees"))).toBe(false);
    await client.git.init.mutate();
    git(root, ["add", "a.txt"]);
    git(root, ["commit", "-qm", "first"]);

    const alpha = await client.worktree.create.mutate({ permissionMode: "acceptEdits" });
    const bravo = await client.worktree.create.mutate({ permissionMode: "acceptEdits" });
    expect(alpha.worktree).toMatchObject({ branch: `cairn/${alpha.sessionId}`, base: "main", discarded: false });
    expect(alpha.worktree.path.startsWith(join(fixture.cairnHome, "worktrees"))).toBe(true);
    for (const session of [alpha, bravo])
      await client.settings.addRule.mutate({ scope: "session", sessionId: session.sessionId, behavior: "allow", rule: "Bash" });

    // Each agent edits a.txt with Bash in its own worktree; alpha also commits from inside the sandbox.
    fixture.sim.setScenario({
      turns: [
        {
          match: { firstMessageIncludes: "alpha task" },
          ...bash("printf 'one\\nTWO from alpha\\nthree\\n' > a.txt && git -c user.name=A -c user.email=a@example.com commit -qam 'alpha edit' && pwd"),
        },
        { match: { firstMessageIncludes: "alpha task" }, ...text("alpha done") },
        { match: { firstMessageIncludes: "bravo task" }, ...bash("printf 'one\\nTWO from bravo\\nthree\\n' > a.txt && echo new > b.txt && pwd") },
        { match: { firstMessageIncludes: "bravo task" }, ...text("bravo done") },
      ],
    });
    await Promise.all([
      client.session.send.mutate({ sessionId: alpha.sessionId, prompt: "alpha task" }),
      client.session.send.mutate({ sessionId: bravo.sessionId, prompt: "bravo task" }),
    ]);
    await Promise.all([idle(client, alpha.sessionId), idle(client, bravo.sessionId)]);
    expect(await lastToolResult(client, alpha.sessionId)).toContain(alpha.worktree.path);
    expect(await lastToolResult(client, bravo.sessionId)).toContain(bravo.worktree.path);
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe(ORIGINAL);
    expect(await readFile(join(alpha.worktree.path, "a.txt"), "utf8")).toBe("one\nTWO from alpha\nthree\n");
    expect(await readFile(join(bravo.worktree.path, "a.txt"), "utf8")).toBe("one\nTWO from bravo\nthree\n");
    expect(git(root, ["log", "--format=%s", "-1", alpha.worktree.branch])).toBe("alpha edit\n");

    // The changes and git panels see each session's own worktree.
    const bravoChanges = await client.changes.list.query({ sessionId: bravo.sessionId });
    expect(bravoChanges.files.map((file) => [file.path, file.status])).toEqual([
      ["a.txt", "modified"],
      ["b.txt", "added"],
    ]);
    expect(bravoChanges.files[0]?.after).toBe("one\nTWO from bravo\nthree\n");
    const bravoStatus = await client.git.status.query({ sessionId: bravo.sessionId });
    expect(bravoStatus).toMatchObject({ repository: true, branch: bravo.worktree.branch });
    expect(bravoStatus.repository && bravoStatus.files.map((file) => [file.path, file.unstaged])).toEqual([
      ["a.txt", "modified"],
      ["b.txt", "untracked"],
    ]);
    expect(await client.git.status.query()).toMatchObject({ repository: true, branch: "main", files: [] });
    const listed = await client.session.list.query();
    expect(listed.find((entry) => entry.sessionId === alpha.sessionId)?.worktree).toEqual({ branch: alpha.worktree.branch, base: "main", discarded: false });

    const merged = await client.worktree.merge.mutate({ sessionId: alpha.sessionId });
    expect(merged).toMatchObject({ base: "main", branch: alpha.worktree.branch });
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("one\nTWO from alpha\nthree\n");
    expect(git(root, ["log", "--topo-order", "--format=%s", "-3", "main"])).toBe(`Merge branch '${alpha.worktree.branch}'\nalpha edit\nfirst\n`);

    // The second merge conflicts: refused with the file named, nothing lost on either side.
    const conflict = await failureOf(client.worktree.merge.mutate({ sessionId: bravo.sessionId }));
    expect(conflict.data?.cairn?.code).toBe("merge_conflict");
    expect(conflict.message).toContain("conflicts in a.txt; the merge was undone and nothing changed");
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("one\nTWO from alpha\nthree\n");
    expect(git(root, ["status", "--porcelain"])).toBe("");
    expect(git(root, ["show", `${bravo.worktree.branch}:a.txt`])).toBe("one\nTWO from bravo\nthree\n");

    await client.worktree.discard.mutate({ sessionId: bravo.sessionId });
    expect(existsSync(bravo.worktree.path)).toBe(false);
    expect(git(root, ["branch", "--list", bravo.worktree.branch])).toBe("");
    expect(await client.worktree.get.query({ sessionId: bravo.sessionId })).toMatchObject({ discarded: true });
    const gone = await failureOf(client.session.send.mutate({ sessionId: bravo.sessionId, prompt: "more" }));
    expect(gone.data?.cairn?.code).toBe("worktree_not_found");
    expect((await client.session.get.query({ sessionId: bravo.sessionId })).messages.length).toBeGreaterThan(0);
    expect((await failureOf(client.worktree.merge.mutate({ sessionId: bravo.sessionId }))).message).toContain("was discarded");
  });

  it("resumes a worktree session in its worktree after a server restart", async () => {
    await using fixture = await startApiFixture({ files: { "a.txt": ORIGINAL } });
    git(fixture.root, ["init", "-q", "--initial-branch=main"]);
    git(fixture.root, ["add", "a.txt"]);
    git(fixture.root, ["commit", "-qm", "first"]);
    const created = await fixture.client.worktree.create.mutate();
    await fixture.client.settings.addRule.mutate({ scope: "session", sessionId: created.sessionId, behavior: "allow", rule: "Bash" });
    fixture.sim.setScenario({ turns: [bash("pwd"), text("here")] });
    await fixture.client.session.send.mutate({ sessionId: created.sessionId, prompt: "where are you?" });
    await idle(fixture.client, created.sessionId);
    await fixture.server.close();

    const again = await startServer({
      workerScript: localWorkerScript,
      workspace: fixture.root,
      cairnHome: fixture.cairnHome,
      version: "test",
      apiKey: "test",
      baseURL: fixture.sim.url,
      port: 0,
      webDir: null,
      checkpoints: false,
      managedSettingsPath: join(fixture.parent, "none.json"),
    });
    try {
      const client = apiClient(again.url, again.token);
      expect(await client.worktree.get.query({ sessionId: created.sessionId })).toMatchObject({ path: created.worktree.path, discarded: false });
      // The Bash rule was the session's own: the resumed session asks again, so allow it for this run.
      await client.settings.addRule.mutate({ scope: "session", sessionId: created.sessionId, behavior: "allow", rule: "Bash" });
      fixture.sim.setScenario({ turns: [bash("pwd && cat a.txt"), text("still here")] });
      await client.session.send.mutate({ sessionId: created.sessionId, prompt: "and now?" });
      await idle(client, created.sessionId);
      expect(await lastToolResult(client, created.sessionId)).toContain(created.worktree.path);
      expect(await client.git.status.query({ sessionId: created.sessionId })).toMatchObject({ branch: created.worktree.branch });
    } finally {
      await again.close();
    }
  });
});
