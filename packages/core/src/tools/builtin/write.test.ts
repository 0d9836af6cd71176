import { describe, expect, it } from "vitest";
import { createMemoryWorkspace } from "../../testing/memory-workspace.ts";
import { createEditTool } from "./edit.ts";
import { fileModifiedMessage, fileNotReadMessage } from "./file-access.ts";
import { createReadTool } from "./read.ts";
import { expectResult, runText, runTool, toolContext } from "./tool-test-support.ts";
import { createWriteTool } from "./write.ts";

const read = createReadTool();
const write = createWriteTool({ now: () => 7 });
const edit = createEditTool();

describe("Write", () => {
  it("creates a new file (and its directories) without a Read", async () => {
    const workspace = createMemoryWorkspace({});
    const context = toolContext(workspace);
    const run = expectResult(await runTool(write, { file_path: "/workspace/src/new.ts", content: "export {};\n" }, context));
    expect(run.content).toBe("File created successfully at: /workspace/src/new.ts (file state is current in your context — no need to Read it back)");
    expect(run.result.output).toEqual({
      type: "create",
      filePath: "/workspace/src/new.ts",
      content: "export {};\n",
      structuredPatch: [],
      originalFile: null,
      userModified: false,
    });
    expect(workspace.peek("/workspace/src/new.ts")).toBe("export {};\n");
  });

  it("records the written file so Edit works right after, with no Read", async () => {
    const workspace = createMemoryWorkspace({});
    const context = toolContext(workspace);
    await runTool(write, { file_path: "/workspace/a.txt", content: "one" }, context);
    const stat = await workspace.stat("/workspace/a.txt");
    expect(context.readFileState.get("/workspace/a.txt")).toEqual({ mtimeMs: stat?.mtimeMs, size: 3, readAt: 7, partial: false });
    expect(expectResult(await runTool(edit, { file_path: "/workspace/a.txt", old_string: "one", new_string: "two" }, context)).isError).toBe(false);
  });

  it("overwrites a file that was Read, with a structured patch against the old content", async () => {
    const workspace = createMemoryWorkspace({ "a.txt": "one\ntwo\n" });
    const context = toolContext(workspace);
    await runTool(read, { file_path: "/workspace/a.txt" }, context);
    const run = expectResult(await runTool(write, { file_path: "/workspace/a.txt", content: "one\n2\n" }, context));
    expect(run.content).toBe("The file /workspace/a.txt has been updated successfully. (file state is current in your context — no need to Read it back)");
    expect(run.result.output).toMatchObject({
      type: "update",
      originalFile: "one\ntwo\n",
      structuredPatch: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [" one", "-two", "+2"] }],
    });
  });

  it("writes the content's own line endings, as Claude Code does", async () => {
    const workspace = createMemoryWorkspace({ "win.txt": "a\r\nb\r\n" });
    const context = toolContext(workspace);
    await runTool(read, { file_path: "/workspace/win.txt" }, context);
    await runTool(write, { file_path: "/workspace/win.txt", content: "x\ny\n" }, context);
    expect(workspace.peek("/workspace/win.txt")).toBe("x\ny\n");
  });

  it("refuses an existing file that was not Read, and one changed since", async () => {
    const workspace = createMemoryWorkspace({ "a.txt": "keep" });
    const context = toolContext(workspace);
    const unread = await runTool(write, { file_path: "/workspace/a.txt", content: "lost" }, context);
    expect(unread).toMatchObject({ stage: "validation", code: "file_not_read", message: fileNotReadMessage });
    await runTool(read, { file_path: "/workspace/a.txt" }, context);
    await workspace.writeFile("/workspace/a.txt", "changed by a linter");
    const stale = await runTool(write, { file_path: "/workspace/a.txt", content: "lost" }, context);
    expect(stale).toMatchObject({ stage: "validation", code: "file_modified", message: fileModifiedMessage });
    expect(workspace.peek("/workspace/a.txt")).toBe("changed by a linter");
  });

  it("refuses relative paths, directories and paths outside the workspace", async () => {
    const workspace = createMemoryWorkspace({ "dir/a.txt": "x" });
    const context = toolContext(workspace);
    expect(runText(await runTool(write, { file_path: "dir/b.txt", content: "" }, context))).toBe(
      "file_path must be an absolute path, not a relative path. Did you mean /workspace/dir/b.txt?",
    );
    expect(runText(await runTool(write, { file_path: "/workspace/dir", content: "" }, context))).toBe(
      "/workspace/dir is a directory. Give the path of a file to write.",
    );
    const outside = await runTool(write, { file_path: "/tmp/evil.sh", content: "rm -rf /" }, context);
    expect(outside).toMatchObject({ stage: "validation", code: "outside_workspace" });
    expect(runText(outside)).toContain("/tmp/evil.sh is outside the workspace (/workspace)");
  });
});
