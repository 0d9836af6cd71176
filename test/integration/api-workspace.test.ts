import { readFile, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import type { AppRouter, WorkspaceChange } from "@cairn/api";
import { readSse, startApiFixture, eventually } from "./api-harness.ts";

async function failure(promise: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TRPCClientError) return error as TRPCClientError<AppRouter>;
    throw error;
  }
  throw new Error("expected the call to fail");
}

describe("workspace procedures", () => {
  it("reads, lists, creates, renames and deletes inside the workspace", async () => {
    await using fixture = await startApiFixture({ files: { "src/math.ts": "export const one = 1;\n", "README.md": "# hi\n", "logo.bin": "\u0000\u0001" } });
    const { client, root } = fixture;
    const tree = await client.workspace.tree.query();
    expect(tree.path).toBe(root);
    expect(tree.entries.map((entry) => `${entry.kind}:${entry.name}`)).toEqual(["directory:src", "file:logo.bin", "file:README.md"]);

    const file = await client.workspace.read.query({ path: "src/math.ts" });
    expect(file).toMatchObject({ path: join(root, "src/math.ts"), content: "export const one = 1;\n", binary: false, size: 22 });
    expect((await client.workspace.read.query({ path: join(root, "logo.bin") })).binary).toBe(true);

    await client.workspace.create.mutate({ path: "docs", kind: "directory" });
    await client.workspace.create.mutate({ path: "docs/a.md", kind: "file" });
    expect((await failure(client.workspace.create.mutate({ path: "docs/a.md", kind: "file" }))).data?.cairn?.code).toBe("file_exists");
    await client.workspace.rename.mutate({ from: "docs/a.md", to: "docs/b.md" });
    expect((await client.workspace.tree.query({ path: "docs" })).entries.map((entry) => entry.name)).toEqual(["b.md"]);
    await client.workspace.delete.mutate({ path: "docs" });
    expect((await failure(client.workspace.read.query({ path: "docs/b.md" }))).data?.code).toBe("NOT_FOUND");
  });

  it("refuses a write when the file changed since it was read, and reports the current mtime", async () => {
    await using fixture = await startApiFixture({ files: { "a.txt": "one\n" } });
    const { client, root } = fixture;
    const opened = await client.workspace.read.query({ path: "a.txt" });
    const saved = await client.workspace.write.mutate({ path: "a.txt", content: "two\n", expectedMtimeMs: opened.mtimeMs });
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("two\n");

    // Someone else (the agent, another tab) changes the file.
    await writeFile(join(root, "a.txt"), "three\n");
    const later = new Date(Date.now() + 5_000);
    await utimes(join(root, "a.txt"), later, later);
    const conflict = await failure(client.workspace.write.mutate({ path: "a.txt", content: "mine\n", expectedMtimeMs: saved.mtimeMs }));
    expect(conflict.data?.code).toBe("CONFLICT");
    expect(conflict.data?.cairn?.code).toBe("file_conflict");
    expect(conflict.data?.cairn?.details.currentMtimeMs).toBe((await client.workspace.read.query({ path: "a.txt" })).mtimeMs);
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("three\n");
  });

  it("refuses paths that escape the workspace, by .. or by symlink", async () => {
    await using fixture = await startApiFixture({ files: { "a.txt": "inside\n" } });
    const { client, root, parent } = fixture;
    await writeFile(join(parent, "secret.txt"), "outside\n");
    await symlink(join(parent, "secret.txt"), join(root, "link.txt"));
    for (const path of ["../secret.txt", join(parent, "secret.txt"), "/etc/passwd", "link.txt"]) {
      const refused = await failure(client.workspace.read.query({ path }));
      expect(refused.data?.code, path).toBe("FORBIDDEN");
      expect(refused.data?.cairn?.code, path).toBe("outside_workspace");
    }
    expect((await failure(client.workspace.write.mutate({ path: "../evil.txt", content: "x" }))).data?.code).toBe("FORBIDDEN");
    expect((await failure(client.workspace.tree.query({ path: ".." }))).data?.code).toBe("FORBIDDEN");
    expect((await failure(client.workspace.rename.mutate({ from: "a.txt", to: "../moved.txt" }))).data?.code).toBe("FORBIDDEN");
    expect((await failure(client.workspace.delete.mutate({ path: "../secret.txt" }))).data?.code).toBe("FORBIDDEN");
    expect(await readFile(join(parent, "secret.txt"), "utf8")).toBe("outside\n");
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("inside\n");
  });

  it("streams file changes to every workspace.watch subscriber through one watcher", async () => {
    await using fixture = await startApiFixture({ files: { "a.txt": "one\n" } });
    const watchers = [watchChanges(fixture.server.url, fixture.server.token), watchChanges(fixture.server.url, fixture.server.token)];
    await eventually(() => expect(fixture.server.files.watcher.listenerCount).toBe(2));
    // The watcher starts with the first subscription; keep writing until both report.
    await eventually(async () => {
      await writeFile(join(fixture.root, "b.txt"), `${Date.now()}\n`);
      for (const watcher of watchers)
        expect(watcher.changes.some((change) => change.path === join(fixture.root, "b.txt") && change.mtimeMs !== undefined)).toBe(true);
    });
    await Promise.all(watchers.map((watcher) => watcher.stop()));
    await eventually(() => expect(fixture.server.files.watcher.listenerCount).toBe(0));
  });
});

function watchChanges(url: string, token: string) {
  const controller = new AbortController();
  const changes: WorkspaceChange[] = [];
  const reading = (async () => {
    try {
      for await (const message of readSse(`${url}/api/trpc/workspace.watch`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal })) {
        if (message.event === "message") changes.push(JSON.parse(message.data) as WorkspaceChange);
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  })();
  return {
    changes,
    async stop() {
      controller.abort();
      await reading;
    },
  };
}
