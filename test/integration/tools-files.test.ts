import { readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createToolsFixture, type ToolsFixture } from "./tools-support.ts";

let fixture: ToolsFixture | undefined;
afterEach(async () => {
  await fixture?.dispose();
  fixture = undefined;
});

const mathTs =
  "// Small math helpers used by the sample app.\n\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n\n// TODO: handle division by zero\nexport function divide(a: number, b: number): number {\n  return a / b;\n}\n";

describe("file tools against the real worker", () => {
  it("Read → Edit → Read round trip, as in Claude Code's transcript", async () => {
    fixture = await createToolsFixture({ "src/math.ts": mathTs });
    const path = join(fixture.root, "src/math.ts");
    const first = await fixture.run("Read", { file_path: path });
    expect(first.text).toBe(
      "1\t// Small math helpers used by the sample app.\n2\t\n3\texport function add(a: number, b: number): number {\n4\t  return a + b;\n5\t}\n6\t\n7\t// TODO: handle division by zero\n8\texport function divide(a: number, b: number): number {\n9\t  return a / b;\n10\t}\n11\t",
    );
    const edit = await fixture.run("Edit", {
      file_path: path,
      old_string: "// TODO: handle division by zero\nexport function divide(a: number, b: number): number {\n  return a / b;",
      new_string: 'export function divide(a: number, b: number): number {\n  if (b === 0) throw new RangeError("division by zero");\n  return a / b;',
    });
    expect(edit.text).toBe(`The file ${path} has been updated successfully. (file state is current in your context — no need to Read it back)`);
    expect(edit.output).toMatchObject({ structuredPatch: [{ oldStart: 4, oldLines: 7, newStart: 4, newLines: 7 }] });
    expect(await readFile(path, "utf8")).toContain('if (b === 0) throw new RangeError("division by zero");');
    const again = await fixture.run("Read", { file_path: path, offset: 7, limit: 2 });
    expect(again.text).toBe('7\texport function divide(a: number, b: number): number {\n8\t  if (b === 0) throw new RangeError("division by zero");');
  });

  it("Write creates files and directories, then edits need no Read; existing files need one", async () => {
    fixture = await createToolsFixture({ "keep.txt": "original\n" });
    const created = await fixture.run("Write", { file_path: join(fixture.root, "new/dir/a.txt"), content: "alpha\n" });
    expect(created.text).toMatch(/^File created successfully at: .*\/new\/dir\/a\.txt/);
    expect(await readFile(join(fixture.root, "new/dir/a.txt"), "utf8")).toBe("alpha\n");
    const edited = await fixture.run("Edit", { file_path: join(fixture.root, "new/dir/a.txt"), old_string: "alpha", new_string: "beta" });
    expect(edited.isError).toBe(false);
    const refused = await fixture.run("Write", { file_path: join(fixture.root, "keep.txt"), content: "clobbered" });
    expect(refused).toMatchObject({ isError: true, errorClass: "file_not_read", text: "File has not been read yet. Read it first before writing to it." });
    // Refused by the tool's own check, before the permission step: the call's record carries no decision.
    expect(refused.outcome.record.decision).toBeUndefined();
    expect(created.outcome.record.decision).toMatchObject({ behavior: "allow", asked: false });
    expect(await readFile(join(fixture.root, "keep.txt"), "utf8")).toBe("original\n");
  });

  it("refuses to edit a file changed on disk after it was read", async () => {
    fixture = await createToolsFixture({ "a.txt": "one\n" });
    const path = join(fixture.root, "a.txt");
    await fixture.run("Read", { file_path: path });
    await writeFile(path, "one, changed by a formatter\n");
    const later = new Date(Date.now() + 5_000);
    await utimes(path, later, later);
    const run = await fixture.run("Edit", { file_path: path, old_string: "one", new_string: "two" });
    expect(run).toMatchObject({
      isError: true,
      errorClass: "file_modified",
      text: "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.",
    });
  });

  it("keeps CRLF line endings and a BOM on disk through an Edit", async () => {
    fixture = await createToolsFixture();
    const path = join(fixture.root, "win.txt");
    await writeFile(path, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("first\r\nsecond\r\n")]));
    await fixture.run("Read", { file_path: path });
    const run = await fixture.run("Edit", { file_path: path, old_string: "first\nsecond", new_string: "1st\n2nd" });
    expect(run.isError).toBe(false);
    expect([...(await readFile(path))]).toEqual([0xef, 0xbb, 0xbf, ...Buffer.from("1st\r\n2nd\r\n")]);
  });

  it("reads a PNG as an image block", async () => {
    fixture = await createToolsFixture();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    await writeFile(join(fixture.root, "logo.png"), png);
    const run = await fixture.run("Read", { file_path: join(fixture.root, "logo.png") });
    expect(run.content).toEqual([{ type: "image", source: { type: "base64", media_type: "image/png", data: png.toString("base64") } }]);
  });

  it("suggests the right file when the model drops the workspace root or guesses the extension", async () => {
    fixture = await createToolsFixture({ "src/config.js": "x" });
    expect((await fixture.run("Read", { file_path: "/src/config.js" })).text).toContain(`Did you mean ${join(fixture.root, "src/config.js")}?`);
    expect((await fixture.run("Read", { file_path: join(fixture.root, "src/config.ts") })).text).toContain(
      `Did you mean ${join(fixture.root, "src/config.js")}?`,
    );
  });
});

describe("search tools against the real worker", () => {
  for (const engine of ["ripgrep", "javascript"] as const) {
    it(`Grep in all three output modes (${engine})`, async () => {
      fixture = await createToolsFixture(
        {
          "src/greet.ts": "export function greet() {\n  // TODO: localize the greeting\n}\n",
          "src/index.ts": "// TODO: read the name from argv\n",
          "README.md": "nothing to see\n",
        },
        { forceJsSearch: engine === "javascript" },
      );
      const content = await fixture.run("Grep", { pattern: "TODO", output_mode: "content", "-n": true });
      expect(content.text).toBe("src/greet.ts:2:  // TODO: localize the greeting\nsrc/index.ts:1:// TODO: read the name from argv");
      const files = await fixture.run("Grep", { pattern: "TODO" });
      expect(files.text).toMatch(/^Found 2 files\n/);
      expect(files.text.split("\n").slice(1).sort()).toEqual(["src/greet.ts", "src/index.ts"]);
      const count = await fixture.run("Grep", { pattern: "o", output_mode: "count", glob: "*.md" });
      expect(count.text).toBe("README.md:1\n\nFound 1 total occurrence across 1 file.");
      const bad = await fixture.run("Grep", { pattern: "foo(" });
      expect(bad.isError).toBe(true);
      expect(bad.text).toMatch(/^Invalid pattern/);
    });
  }

  it("Glob lists relative paths, newest first", async () => {
    fixture = await createToolsFixture({ "src/old.ts": "", "src/new.ts": "", "src/mid.ts": "", "notes.md": "" });
    const stamp = async (name: string, secondsAgo: number) => {
      const time = new Date(Date.now() - secondsAgo * 1000);
      await utimes(join(fixture!.root, name), time, time);
    };
    await stamp("src/old.ts", 300);
    await stamp("src/mid.ts", 200);
    await stamp("src/new.ts", 100);
    const run = await fixture.run("Glob", { pattern: "**/*.ts" });
    expect(run.text).toBe("src/new.ts\nsrc/mid.ts\nsrc/old.ts");
    expect((await fixture.run("Glob", { pattern: "*.rs" })).text).toBe("No files found");
  });
});
