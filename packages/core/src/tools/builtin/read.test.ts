import { describe, expect, it } from "vitest";
import { createMemoryWorkspace } from "../../testing/memory-workspace.ts";
import { createReadTool, readLimits } from "./read.ts";
import { expectResult, runText, runTool, toolContext } from "./tool-test-support.ts";

const mathTs =
  "// Small math helpers used by the sample app.\n\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n\n// TODO: handle division by zero\nexport function divide(a: number, b: number): number {\n  return a / b;\n}\n";

const read = createReadTool({ now: () => 42 });

describe("Read: text files", () => {
  it("numbers lines exactly as Claude Code's transcript shows them", async () => {
    const workspace = createMemoryWorkspace({ "src/math.ts": mathTs });
    const run = expectResult(await runTool(read, { file_path: "/workspace/src/math.ts" }, toolContext(workspace)));
    // Verbatim from src/node/__fixtures__/claude-code/explore-edit.jsonl (workspace path substituted).
    expect(run.content).toBe(
      "1\t// Small math helpers used by the sample app.\n2\t\n3\texport function add(a: number, b: number): number {\n4\t  return a + b;\n5\t}\n6\t\n7\t// TODO: handle division by zero\n8\texport function divide(a: number, b: number): number {\n9\t  return a / b;\n10\t}\n11\t",
    );
    expect(run.result.output).toEqual({
      type: "text",
      file: { filePath: "/workspace/src/math.ts", content: mathTs, numLines: 11, startLine: 1, totalLines: 11 },
    });
    expect(run.isError).toBe(false);
  });

  it("records mtime and size in readFileState, partial only when offset or limit is given", async () => {
    const workspace = createMemoryWorkspace({ "a.txt": "one\ntwo\n" });
    const context = toolContext(workspace);
    await runTool(read, { file_path: "/workspace/a.txt" }, context);
    const stat = await workspace.stat("/workspace/a.txt");
    expect(context.readFileState.get("/workspace/a.txt")).toEqual({ mtimeMs: stat?.mtimeMs, size: 8, readAt: 42, partial: false });
    await runTool(read, { file_path: "/workspace/a.txt", offset: 2 }, context);
    expect(context.readFileState.get("/workspace/a.txt")?.partial).toBe(true);
  });

  it("reads a slice with offset and limit, numbering from the offset", async () => {
    const workspace = createMemoryWorkspace({ "a.txt": "l1\nl2\nl3\nl4\nl5" });
    const run = await runTool(read, { file_path: "/workspace/a.txt", offset: 2, limit: 2 }, toolContext(workspace));
    expect(runText(run)).toBe("2\tl2\n3\tl3");
    expect(expectResult(run).result.output).toMatchObject({ file: { startLine: 2, numLines: 2, totalLines: 5 } });
  });

  it("accepts numbers sent as strings, as models sometimes do", async () => {
    const workspace = createMemoryWorkspace({ "a.txt": "l1\nl2\nl3" });
    expect(runText(await runTool(read, { file_path: "/workspace/a.txt", offset: "3" }, toolContext(workspace)))).toBe("3\tl3");
  });

  it("warns, without failing, about an empty file and an offset past the end", async () => {
    const workspace = createMemoryWorkspace({ "empty.txt": "", "short.txt": "a\nb" });
    const empty = expectResult(await runTool(read, { file_path: "/workspace/empty.txt" }, toolContext(workspace)));
    expect(empty.content).toBe("<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>");
    expect(empty.isError).toBe(false);
    const past = expectResult(await runTool(read, { file_path: "/workspace/short.txt", offset: 10 }, toolContext(workspace)));
    expect(past.content).toBe(
      "<system-reminder>Warning: the file exists but is shorter than the provided offset (10). The file has 2 lines.</system-reminder>",
    );
  });

  it("shows CRLF files without carriage returns", async () => {
    const workspace = createMemoryWorkspace({ "win.txt": "a\r\nb\r\n" });
    expect(runText(await runTool(read, { file_path: "/workspace/win.txt" }, toolContext(workspace)))).toBe("1\ta\n2\tb\n3\t");
  });
});

describe("Read: limits", () => {
  it("stops at 2000 lines by default and says how to read on", async () => {
    const text = Array.from({ length: 2500 }, (_, index) => `${index + 1}`).join("\n");
    const workspace = createMemoryWorkspace({ "long.txt": text });
    const content = runText(await runTool(read, { file_path: "/workspace/long.txt" }, toolContext(workspace)));
    expect(content.split("\n").filter((line) => /^\d+\t/.test(line))).toHaveLength(readLimits.defaultLineLimit);
    expect(content).toContain("2000\t2000\n\n<system-reminder>Showing lines 1-2000 of 2500. Use offset and limit to read the rest of the file.");
  });

  it("cuts lines longer than 2000 characters and says so", async () => {
    const workspace = createMemoryWorkspace({ "wide.txt": `${"x".repeat(2100)}\nshort` });
    const content = runText(await runTool(read, { file_path: "/workspace/wide.txt" }, toolContext(workspace)));
    expect(content).toContain(`1\t${"x".repeat(2000)}… [line truncated, 100 more characters]\n2\tshort`);
    expect(content).toContain("1 line was longer than 2000 characters and cut");
  });

  it("refuses a read that would flood the context, pointing at offset and limit", async () => {
    const workspace = createMemoryWorkspace({ "big.txt": Array.from({ length: 1500 }, () => "y".repeat(100)).join("\n") });
    const context = toolContext(workspace);
    const run = expectResult(await runTool(read, { file_path: "/workspace/big.txt" }, context));
    expect(run.isError).toBe(true);
    expect(run.content).toMatch(/^File content \(\d+ tokens\) exceeds maximum allowed tokens \(25000\)\. Use offset and limit/);
    expect(context.readFileState.has("/workspace/big.txt")).toBe(false);
    const slice = expectResult(await runTool(read, { file_path: "/workspace/big.txt", limit: 100 }, context));
    expect(slice.isError).toBe(false);
  });
});

describe("Read: refusals the model can act on", () => {
  it("rejects a relative path and names the absolute one", async () => {
    const workspace = createMemoryWorkspace({ "src/a.ts": "x" });
    const run = await runTool(read, { file_path: "src/a.ts" }, toolContext(workspace));
    expect(run).toMatchObject({ stage: "validation", code: "relative_path" });
    expect(runText(run)).toBe("file_path must be an absolute path, not a relative path. Did you mean /workspace/src/a.ts?");
  });

  it("reports a missing file and suggests a sibling with another extension", async () => {
    const workspace = createMemoryWorkspace({ "src/config.js": "x" });
    const run = expectResult(await runTool(read, { file_path: "/workspace/src/config.ts" }, toolContext(workspace)));
    expect(run.isError).toBe(true);
    expect(run.content).toBe("File does not exist. Note: your current working directory is /workspace. Did you mean /workspace/src/config.js?");
    expect(run.result.output).toBe(`Error: ${run.content}`);
  });

  it("suggests the path under the workspace when the model dropped the root", async () => {
    const workspace = createMemoryWorkspace({ "src/a.ts": "x" });
    expect(runText(await runTool(read, { file_path: "/src/a.ts" }, toolContext(workspace)))).toContain("Did you mean /workspace/src/a.ts?");
  });

  it("explains that a directory is not a file", async () => {
    const workspace = createMemoryWorkspace({ "src/a.ts": "x" });
    const run = expectResult(await runTool(read, { file_path: "/workspace/src" }, toolContext(workspace)));
    expect(run.isError).toBe(true);
    expect(run.content).toContain("/workspace/src is a directory, not a file. Use the Glob tool, or ls via the Bash tool");
  });

  it("refuses binary files by extension before any I/O, and by content", async () => {
    const workspace = createMemoryWorkspace({ "app.zip": "PK", "data.txt": new Uint8Array([0x61, 0x00, 0x62]) });
    const byName = await runTool(read, { file_path: "/workspace/app.zip" }, toolContext(workspace));
    expect(byName).toMatchObject({ stage: "validation", code: "binary_file" });
    expect(runText(byName)).toContain("This tool cannot read binary files. The file appears to be a binary .zip file.");
    const byContent = expectResult(await runTool(read, { file_path: "/workspace/data.txt" }, toolContext(workspace)));
    expect(byContent.isError).toBe(true);
    expect(byContent.content).toContain("cannot read binary files");
  });

  it("refuses paths outside the workspace, also through a symlink, naming the problem", async () => {
    const workspace = createMemoryWorkspace({ "escape.txt": { symlink: "/etc/passwd" } });
    for (const file_path of ["/etc/passwd", "/workspace/../etc/passwd", "/workspace/escape.txt"]) {
      const run = expectResult(await runTool(read, { file_path }, toolContext(workspace)));
      expect(run.isError).toBe(true);
      expect(run.content).toContain("is outside the workspace (/workspace)");
    }
  });

  it("returns an interrupted result when the signal is already aborted", async () => {
    const workspace = createMemoryWorkspace({ "a.txt": "x" });
    const controller = new AbortController();
    controller.abort();
    const run = expectResult(await runTool(read, { file_path: "/workspace/a.txt" }, toolContext(workspace, { signal: controller.signal })));
    expect(run).toMatchObject({ isError: true, content: "Interrupted: the operation was aborted before it completed." });
  });
});
