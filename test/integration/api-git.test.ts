import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { startApiFixture } from "./api-harness.ts";

describe("git procedures", () => {
  it("offers git init in a plain folder, then stages, commits (refusing an empty message), drafts a message with the model and branches", async () => {
    await using fixture = await startApiFixture({ files: { "README.md": "# test\n", "src/a.ts": "export const a = 1;\n" } });
    const { client } = fixture;
    expect(await client.git.status.query()).toEqual({ repository: false });
    await expect(client.git.stage.mutate({ paths: ["README.md"] })).rejects.toThrow(/not a git repository/);
    await client.git.init.mutate();
    await client.git.stage.mutate({ paths: ["README.md", "src/a.ts"] });
    const staged = await client.git.status.query();
    expect(staged.repository && staged.files.map((file) => [file.path, file.staged])).toEqual([
      ["README.md", "added"],
      ["src/a.ts", "added"],
    ]);
    await expect(client.git.commit.mutate({ message: "  " })).rejects.toThrow(/Write a commit message first/);

    fixture.sim.setScenario({ turns: [{ content: [{ type: "text", text: "Add the README and the a module" }] }] });
    const draft = await client.git.draftMessage.mutate();
    expect(draft.message).toBe("Add the README and the a module");
    expect(JSON.stringify(fixture.sim.requests.at(-1)?.body)).toContain("+export const a = 1;");

    await client.git.commit.mutate({ message: draft.message });
    expect(execFileSync("git", ["log", "--format=%s"], { cwd: fixture.root }).toString()).toBe("Add the README and the a module\n");
    await expect(client.git.createBranch.mutate({ name: "two words" })).rejects.toThrow(/not a valid branch name/);
    await client.git.createBranch.mutate({ name: "feature/one" });
    expect(await client.git.status.query()).toMatchObject({ branch: "feature/one", files: [] });
    await expect(client.git.push.mutate()).rejects.toThrow(/no remote/);
  });
});
