import { describe, expect, it } from "vitest";
import { WorkspaceError, type WatchEvent } from "../workspace/port.ts";
import { createMemoryWorkspace } from "./memory-workspace.ts";

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WorkspaceError) return error.code;
    throw error;
  }
  return "no error";
}

describe("createMemoryWorkspace: files", () => {
  it("reads, writes and stats with mtimes from the injected clock", async () => {
    let now = 5_000;
    const workspace = createMemoryWorkspace({ "a.txt": "hi" }, { clock: () => now });
    expect(await workspace.stat("a.txt")).toEqual({ path: "/workspace/a.txt", kind: "file", size: 2, mtimeMs: 5_000, mode: 0o644 });
    now = 9_000;
    const written = await workspace.writeFile("/workspace/deep/new.txt", "héllo");
    expect(written).toMatchObject({ path: "/workspace/deep/new.txt", size: 6, mtimeMs: 9_000 });
    expect(new TextDecoder().decode(await workspace.readFile("deep/new.txt"))).toBe("héllo");
    expect(await workspace.stat("/workspace/deep")).toMatchObject({ kind: "directory" });
    expect(await workspace.stat("/workspace/missing")).toBeNull();
  });

  it("refuses what the real worker refuses", async () => {
    const workspace = createMemoryWorkspace({ dir: { directory: true } });
    expect(await refusal(workspace.readFile("/workspace/missing"))).toBe("not_found");
    expect(await refusal(workspace.readFile("/workspace/dir"))).toBe("is_directory");
    expect(await refusal(workspace.readFile("/workspace/a\0b"))).toBe("invalid_path");
    expect(await refusal(workspace.readFile("/etc/passwd"))).toBe("outside_workspace");
    expect(await refusal(workspace.writeFile("/workspace/../x", "x"))).toBe("outside_workspace");
  });

  it("follows symlinks, relative or absolute, and refuses ones that leave the root", async () => {
    const workspace = createMemoryWorkspace({
      "real/file.txt": "inside",
      "link.txt": { symlink: "real/file.txt" },
      dirlink: { symlink: "/workspace/real" },
      escape: { symlink: "../outside" },
      loop: { symlink: "loop" },
    });
    expect(await workspace.resolve("link.txt")).toBe("/workspace/real/file.txt");
    expect(new TextDecoder().decode(await workspace.readFile("/workspace/dirlink/file.txt"))).toBe("inside");
    expect(await refusal(workspace.resolve("/workspace/escape/secret"))).toBe("outside_workspace");
    expect(await refusal(workspace.stat("/workspace/loop"))).toBe("invalid_path");
  });

  it("lists, renames and removes", async () => {
    const workspace = createMemoryWorkspace({ "src/a.ts": "a", "src/b.ts": "b" });
    expect((await workspace.list("src")).map((entry) => entry.name)).toEqual(["a.ts", "b.ts"]);
    await workspace.rename("src", "lib");
    expect(workspace.peek("/workspace/lib/a.ts")).toBe("a");
    await workspace.remove("lib/a.ts");
    expect((await workspace.list("lib")).map((entry) => entry.path)).toEqual(["/workspace/lib/b.ts"]);
  });

  it("tells watchers about writes until their signal aborts", async () => {
    const workspace = createMemoryWorkspace({});
    const events: WatchEvent[] = [];
    const controller = new AbortController();
    workspace.watch((event) => events.push(event), controller.signal);
    await workspace.writeFile("a.txt", "1");
    await workspace.writeFile("a.txt", "2");
    controller.abort();
    await workspace.writeFile("a.txt", "3");
    expect(events).toEqual([
      { type: "rename", path: "/workspace/a.txt" },
      { type: "change", path: "/workspace/a.txt" },
    ]);
  });
});

describe("createMemoryWorkspace: search", () => {
  it("globs newest first, with a limit and a truncation flag", async () => {
    const workspace = createMemoryWorkspace({ "a.ts": "", "b.ts": "", "c.md": "", ".hidden.ts": "" });
    expect(await workspace.glob("*.ts", { limit: 2 })).toEqual({ paths: ["/workspace/.hidden.ts", "/workspace/b.ts"], truncated: true });
    expect(await refusal(workspace.glob("*", { path: "/workspace/a.ts", limit: 5 }))).toBe("not_directory");
  });

  it("greps like ripgrep in each output mode, skipping .git", async () => {
    const workspace = createMemoryWorkspace({ "a.txt": "foo\nbar foo\n", "b.txt": "nothing\n", ".git/x": "foo" });
    expect((await workspace.grep({ pattern: "foo", outputMode: "files_with_matches" })).lines).toEqual(["/workspace/a.txt"]);
    expect((await workspace.grep({ pattern: "foo", outputMode: "count" })).lines).toEqual(["/workspace/a.txt:2"]);
    const content = await workspace.grep({ pattern: "FOO", outputMode: "content", lineNumbers: true, caseInsensitive: true });
    expect(content).toMatchObject({ lines: ["/workspace/a.txt:1:foo", "/workspace/a.txt:2:bar foo"], files: 1, matches: 2, engine: "javascript" });
    expect(await refusal(workspace.grep({ pattern: "(", outputMode: "content" }))).toBe("invalid_pattern");
  });
});

describe("createMemoryWorkspace: processes", () => {
  it("runs scripted commands, streams their chunks and keeps cwd per shell", async () => {
    const workspace = createMemoryWorkspace(
      {},
      { exec: (command) => (command === "cd sub" ? { cwd: "sub" } : { stdout: "out\n", stderr: "err\n", exitCode: 1 }) },
    );
    const signal = new AbortController().signal;
    const chunks: string[] = [];
    await workspace.exec("cd sub", { shellId: "s1", timeoutMs: 1000, signal });
    const result = await workspace.exec("make", { shellId: "s1", timeoutMs: 1000, signal, onOutput: (chunk) => chunks.push(`${chunk.stream}:${chunk.data}`) });
    expect(result).toMatchObject({ exitCode: 1, stdout: "out\n", stderr: "err\n", cwd: "/workspace/sub" });
    expect(chunks).toEqual(["stdout:out\n", "stderr:err\n"]);
    expect((await workspace.exec("make", { shellId: "s2", timeoutMs: 1000, signal })).cwd).toBe("/workspace");
    expect(workspace.execCalls.map((call) => call.shellId)).toEqual(["s1", "s1", "s2"]);
  });

  it("ends a hanging command on abort or timeout", async () => {
    const workspace = createMemoryWorkspace({}, { exec: () => ({ hang: true }) });
    const controller = new AbortController();
    const running = workspace.exec("sleep", { shellId: "s", timeoutMs: 60_000, signal: controller.signal });
    controller.abort();
    expect(await running).toMatchObject({ interrupted: true, timedOut: false, exitCode: null });
    expect(await workspace.exec("sleep", { shellId: "s", timeoutMs: 5, signal: new AbortController().signal })).toMatchObject({ timedOut: true });
  });

  it("hands background output over once, then reports status", async () => {
    const workspace = createMemoryWorkspace({}, { exec: () => ({ hang: true, stdout: "serving\n" }) });
    const job = await workspace.startBackground("serve", { shellId: "s" });
    expect(await workspace.readBackground(job.id)).toMatchObject({ status: "running", stdout: "serving\n" });
    expect(await workspace.readBackground(job.id)).toMatchObject({ status: "running", stdout: "" });
    expect(await workspace.killBackground(job.id)).toMatchObject({ status: "killed" });
    expect(await refusal(workspace.readBackground("nope"))).toBe("not_found");
  });
});
