import { describe, expect, it } from "vitest";
import { createMemoryWorkspace } from "../../testing/memory-workspace.ts";
import { createEditTool } from "./edit.ts";
import { createReadTool } from "./read.ts";
import { expectResult, runText, runTool, toolContext } from "./tool-test-support.ts";

const mathTs =
  "// Small math helpers used by the sample app.\n\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n\n// TODO: handle division by zero\nexport function divide(a: number, b: number): number {\n  return a / b;\n}\n";

const read = createReadTool();
const edit = createEditTool();

async function readThenContext(files: Record<string, string | Uint8Array>, path: string) {
  const workspace = createMemoryWorkspace(files);
  const context = toolContext(workspace);
  expectResult(await runTool(read, { file_path: path }, context));
  return { workspace, context };
}

describe("Edit: applying a replacement", () => {
  it("matches Claude Code's result text and structured patch for the fixture edit", async () => {
    const { workspace, context } = await readThenContext({ "src/math.ts": mathTs }, "/workspace/src/math.ts");
    const input = {
      replace_all: false,
      file_path: "/workspace/src/math.ts",
      old_string: "// TODO: handle division by zero\nexport function divide(a: number, b: number): number {\n  return a / b;",
      new_string: 'export function divide(a: number, b: number): number {\n  if (b === 0) throw new RangeError("division by zero");\n  return a / b;',
    };
    const run = expectResult(await runTool(edit, input, context));
    expect(run.content).toBe(
      "The file /workspace/src/math.ts has been updated successfully. (file state is current in your context — no need to Read it back)",
    );
    // toolUseResult from src/node/__fixtures__/claude-code/explore-edit.jsonl.
    expect(run.result.output).toEqual({
      filePath: "/workspace/src/math.ts",
      oldString: input.old_string,
      newString: input.new_string,
      originalFile: mathTs,
      structuredPatch: [
        {
          oldStart: 4,
          oldLines: 7,
          newStart: 4,
          newLines: 7,
          lines: [
            "   return a + b;",
            " }",
            " ",
            "-// TODO: handle division by zero",
            " export function divide(a: number, b: number): number {",
            '+  if (b === 0) throw new RangeError("division by zero");',
            "   return a / b;",
            " }",
          ],
        },
      ],
      userModified: false,
      replaceAll: false,
    });
    expect(workspace.peek("/workspace/src/math.ts")).toContain('if (b === 0) throw new RangeError("division by zero");');
  });

  it("updates readFileState so a second edit needs no new Read", async () => {
    const { workspace, context } = await readThenContext({ "a.txt": "one two" }, "/workspace/a.txt");
    expectResult(await runTool(edit, { file_path: "/workspace/a.txt", old_string: "one", new_string: "1" }, context));
    const second = expectResult(await runTool(edit, { file_path: "/workspace/a.txt", old_string: "two", new_string: "2" }, context));
    expect(second.isError).toBe(false);
    expect(workspace.peek("/workspace/a.txt")).toBe("1 2");
    const stat = await workspace.stat("/workspace/a.txt");
    expect(context.readFileState.get("/workspace/a.txt")).toMatchObject({ mtimeMs: stat?.mtimeMs, size: 3, partial: false });
  });

  it("replaces every occurrence with replace_all and says so", async () => {
    const { workspace, context } = await readThenContext({ "a.ts": "let x = 1;\nx = x + 1;\n" }, "/workspace/a.ts");
    const run = expectResult(await runTool(edit, { file_path: "/workspace/a.ts", old_string: "x", new_string: "count", replace_all: true }, context));
    expect(workspace.peek("/workspace/a.ts")).toBe("let count = 1;\ncount = count + 1;\n");
    expect(run.content).toBe(
      "The file /workspace/a.ts has been updated. All occurrences were successfully replaced. (file state is current in your context — no need to Read it back)",
    );
  });

  it("keeps CRLF line endings, matching old_string written with \\n or \\r\\n", async () => {
    const { workspace, context } = await readThenContext({ "win.txt": "a\r\nb\r\nc\r\n" }, "/workspace/win.txt");
    expectResult(await runTool(edit, { file_path: "/workspace/win.txt", old_string: "a\nb", new_string: "x\ny" }, context));
    expect(workspace.peek("/workspace/win.txt")).toBe("x\r\ny\r\nc\r\n");
    expectResult(await runTool(edit, { file_path: "/workspace/win.txt", old_string: "y\r\nc", new_string: "z" }, context));
    expect(workspace.peek("/workspace/win.txt")).toBe("x\r\nz\r\n");
  });

  it("keeps a missing trailing newline missing and a present one present", async () => {
    const { workspace, context } = await readThenContext({ "no-eol.txt": "a\nb", "eol.txt": "a\nb\n" }, "/workspace/no-eol.txt");
    await runTool(read, { file_path: "/workspace/eol.txt" }, context);
    await runTool(edit, { file_path: "/workspace/no-eol.txt", old_string: "b", new_string: "c" }, context);
    await runTool(edit, { file_path: "/workspace/eol.txt", old_string: "b", new_string: "c" }, context);
    expect(workspace.peek("/workspace/no-eol.txt")).toBe("a\nc");
    expect(workspace.peek("/workspace/eol.txt")).toBe("a\nc\n");
  });

  it("writes `$` patterns in new_string literally", async () => {
    const { workspace, context } = await readThenContext({ "a.js": "const price = 1;" }, "/workspace/a.js");
    await runTool(edit, { file_path: "/workspace/a.js", old_string: "1", new_string: "`$&$1$$`" }, context);
    expect(workspace.peek("/workspace/a.js")).toBe("const price = `$&$1$$`;");
  });

  it("matches straight quotes typed for curly ones in the file", async () => {
    const { workspace, context } = await readThenContext({ "a.md": "It\u2019s \u201cfine\u201d." }, "/workspace/a.md");
    const run = expectResult(await runTool(edit, { file_path: "/workspace/a.md", old_string: 'It\'s "fine"', new_string: "All good" }, context));
    expect(workspace.peek("/workspace/a.md")).toBe("All good.");
    expect(run.result.output).toMatchObject({ oldString: "It\u2019s \u201cfine\u201d" });
  });

  it("keeps a UTF-8 byte order mark", async () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("hello")]);
    const { workspace, context } = await readThenContext({ "bom.txt": bom }, "/workspace/bom.txt");
    await runTool(edit, { file_path: "/workspace/bom.txt", old_string: "hello", new_string: "bye" }, context);
    const bytes = await workspace.readFile("/workspace/bom.txt");
    expect([...bytes]).toEqual([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("bye")]);
  });

  it("creates a new file from an empty old_string, without a Read", async () => {
    const workspace = createMemoryWorkspace({});
    const context = toolContext(workspace);
    const run = expectResult(await runTool(edit, { file_path: "/workspace/new/file.txt", old_string: "", new_string: "hi\n" }, context));
    expect(run.isError).toBe(false);
    expect(workspace.peek("/workspace/new/file.txt")).toBe("hi\n");
  });

  it("allows editing after a partial Read", async () => {
    const workspace = createMemoryWorkspace({ "a.txt": "one\ntwo\nthree\n" });
    const context = toolContext(workspace);
    await runTool(read, { file_path: "/workspace/a.txt", offset: 2, limit: 1 }, context);
    const run = expectResult(await runTool(edit, { file_path: "/workspace/a.txt", old_string: "two", new_string: "2" }, context));
    expect(run.isError).toBe(false);
    expect(runText(run)).toContain("updated successfully");
  });
});
