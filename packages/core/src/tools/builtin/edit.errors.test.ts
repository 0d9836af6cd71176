import { describe, expect, it } from "vitest";
import { createMemoryWorkspace } from "../../testing/memory-workspace.ts";
import { createEditTool } from "./edit.ts";
import { fileModifiedMessage, fileNotReadMessage } from "./file-access.ts";
import { createReadTool } from "./read.ts";
import { expectResult, runText, runTool, toolContext } from "./tool-test-support.ts";

const read = createReadTool();
const edit = createEditTool();

async function setup(files: Record<string, string>, readPaths: string[] = [], clock?: () => number) {
  const workspace = createMemoryWorkspace(files, clock ? { clock } : {});
  const context = toolContext(workspace);
  for (const path of readPaths) expectResult(await runTool(read, { file_path: path }, context));
  return { workspace, context };
}

describe("Edit: refusals, each saying how to fix it", () => {
  it("refuses a file that was never Read", async () => {
    const { workspace, context } = await setup({ "a.txt": "x" });
    const run = await runTool(edit, { file_path: "/workspace/a.txt", old_string: "x", new_string: "y" }, context);
    expect(run).toMatchObject({ stage: "validation", message: fileNotReadMessage });
    expect(workspace.peek("/workspace/a.txt")).toBe("x");
  });

  it("refuses a file whose mtime changed since it was Read", async () => {
    const { workspace, context } = await setup({ "a.txt": "x" }, ["/workspace/a.txt"]);
    await workspace.writeFile("/workspace/a.txt", "x");
    const run = await runTool(edit, { file_path: "/workspace/a.txt", old_string: "x", new_string: "y" }, context);
    expect(run).toMatchObject({ stage: "validation", message: fileModifiedMessage });
  });

  it("refuses a file whose size changed even when the mtime did not", async () => {
    const { workspace, context } = await setup({ "a.txt": "x" }, ["/workspace/a.txt"], () => 1000);
    await workspace.writeFile("/workspace/a.txt", "xx");
    const run = await runTool(edit, { file_path: "/workspace/a.txt", old_string: "x", new_string: "y" }, context);
    expect(run).toMatchObject({ stage: "validation", message: fileModifiedMessage });
  });

  it("refuses at call time when the file changed after validation (while a person decided)", async () => {
    const { workspace, context } = await setup({ "a.txt": "x" }, ["/workspace/a.txt"]);
    const input = { file_path: "/workspace/a.txt", old_string: "x", new_string: "y", replace_all: false };
    expect(await edit.validateInput?.(input, context)).toEqual({ ok: true });
    await workspace.writeFile("/workspace/a.txt", "x changed");
    const call = edit.call(input, context, {
      toolUseId: "toolu_1",
      assistantMessage: { type: "assistant", uuid: "u", timestamp: "t", message: { id: "m", role: "assistant", model: "m", content: [] } },
    });
    expect(await (call as Promise<unknown>)).toMatchObject({ isError: true, content: fileModifiedMessage });
    expect(workspace.peek("/workspace/a.txt")).toBe("x changed");
  });

  it("says when old_string is not in the file", async () => {
    const { context } = await setup({ "a.txt": "hello" }, ["/workspace/a.txt"]);
    const run = await runTool(edit, { file_path: "/workspace/a.txt", old_string: "goodbye", new_string: "y" }, context);
    expect(run).toMatchObject({ stage: "validation" });
    expect(runText(run)).toMatch(/^String to replace not found in file\. Read the file again and copy the exact text/);
    expect(runText(run)).toMatch(/\nString: goodbye$/);
  });

  it("says how many times old_string occurs and how to choose", async () => {
    const { context } = await setup({ "a.txt": "a a a" }, ["/workspace/a.txt"]);
    const run = await runTool(edit, { file_path: "/workspace/a.txt", old_string: "a", new_string: "b" }, context);
    expect(runText(run)).toBe(
      "Found 3 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: a",
    );
  });

  it("refuses identical old and new strings", async () => {
    const { context } = await setup({ "a.txt": "a" }, ["/workspace/a.txt"]);
    const run = await runTool(edit, { file_path: "/workspace/a.txt", old_string: "a", new_string: "a" }, context);
    expect(run).toMatchObject({ stage: "validation", code: "no_change" });
    expect(runText(run)).toMatch(/^No changes to make: old_string and new_string are exactly the same\./);
  });

  it("refuses to create over an existing non-empty file", async () => {
    const { context } = await setup({ "a.txt": "content" });
    const run = await runTool(edit, { file_path: "/workspace/a.txt", old_string: "", new_string: "new" }, context);
    expect(runText(run)).toMatch(/^Cannot create new file - file already exists\./);
  });

  it("reports a missing file with a suggestion", async () => {
    const { context } = await setup({ "src/util.js": "x" });
    const run = await runTool(edit, { file_path: "/workspace/src/util.ts", old_string: "x", new_string: "y" }, context);
    expect(runText(run)).toBe("File does not exist. Note: your current working directory is /workspace. Did you mean /workspace/src/util.js?");
  });

  it("requires an absolute path", async () => {
    const { context } = await setup({ "a.txt": "x" });
    const run = await runTool(edit, { file_path: "a.txt", old_string: "x", new_string: "y" }, context);
    expect(runText(run)).toBe("file_path must be an absolute path, not a relative path. Did you mean /workspace/a.txt?");
  });

  it("refuses a directory and a path outside the workspace", async () => {
    const { context } = await setup({ "dir/a.txt": "x", link: { symlink: "/outside" } as never });
    expect(runText(await runTool(edit, { file_path: "/workspace/dir", old_string: "x", new_string: "y" }, context))).toContain("is a directory");
    for (const file_path of ["/etc/hosts", "/workspace/../etc/hosts", "/workspace/link/file"]) {
      const run = await runTool(edit, { file_path, old_string: "", new_string: "pwned" }, context);
      expect(run).toMatchObject({ stage: "validation", code: "outside_workspace" });
      expect(runText(run)).toContain("is outside the workspace (/workspace)");
    }
  });

  it("rejects input that does not match the schema, such as unknown keys", async () => {
    const { context } = await setup({ "a.txt": "x" });
    const run = await runTool(edit, { file_path: "/workspace/a.txt", old_string: "x", new_string: "y", extra: 1 }, context);
    expect(run.stage).toBe("input");
  });
});
