import { describe, expect, it } from "vitest";
import { createMemoryWorkspace, type MemoryEntry } from "../../testing/memory-workspace.ts";
import type { GrepQuery, Workspace } from "../../workspace/port.ts";
import { createGrepTool } from "./grep.ts";
import { expectResult, runText, runTool, toolContext } from "./tool-test-support.ts";

const grep = createGrepTool();

/** The memory workspace, recording every query the tool sent. */
function recordingWorkspace(files: Record<string, MemoryEntry>): { workspace: Workspace; queries: GrepQuery[] } {
  const inner = createMemoryWorkspace(files);
  const queries: GrepQuery[] = [];
  const workspace: Workspace = {
    ...inner,
    root: inner.root,
    grep(query, options) {
      queries.push(query);
      return inner.grep(query, options);
    },
  };
  return { workspace, queries };
}

const project = {
  "src/greet.ts": "export function greet() {\n  // TODO: localize the greeting\n}\n",
  "src/index.ts": "import { greet } from './greet';\n// TODO: read the name from argv\n",
  "README.md": "No todo here\n",
};

describe("Grep: output modes", () => {
  it("defaults to files_with_matches: Found N files, relative paths, newest first", async () => {
    const { workspace, queries } = recordingWorkspace(project);
    const run = expectResult(await runTool(grep, { pattern: "TODO" }, toolContext(workspace)));
    expect(run.content).toBe("Found 2 files\nsrc/index.ts\nsrc/greet.ts");
    expect(run.result.output).toEqual({ mode: "files_with_matches", numFiles: 2, filenames: ["src/index.ts", "src/greet.ts"] });
    expect(queries[0]).toEqual({ pattern: "TODO", outputMode: "files_with_matches", headLimit: 250 });
  });

  it("shows content as path:line:text, as in Claude Code's transcript", async () => {
    const { workspace, queries } = recordingWorkspace(project);
    const run = expectResult(await runTool(grep, { pattern: "TODO", output_mode: "content", "-n": true }, toolContext(workspace)));
    expect(run.content).toBe("src/greet.ts:2:  // TODO: localize the greeting\nsrc/index.ts:2:// TODO: read the name from argv");
    expect(run.result.output).toEqual({
      mode: "content",
      numFiles: 0,
      filenames: [],
      content: "src/greet.ts:2:  // TODO: localize the greeting\nsrc/index.ts:2:// TODO: read the name from argv",
      numLines: 2,
    });
    expect(queries[0]).toMatchObject({ outputMode: "content", lineNumbers: true });
  });

  it("counts matches per file with a total", async () => {
    const { workspace } = recordingWorkspace({ "a.txt": "x\nx\n", "b.txt": "x\n" });
    const run = expectResult(await runTool(grep, { pattern: "x", output_mode: "count" }, toolContext(workspace)));
    expect(run.content).toBe("a.txt:2\nb.txt:1\n\nFound 3 total occurrences across 2 files.");
    expect(run.result.output).toMatchObject({ mode: "count", numFiles: 2, numMatches: 3 });
  });

  it("words an empty result per mode", async () => {
    const { workspace } = recordingWorkspace(project);
    const context = toolContext(workspace);
    expect(runText(await runTool(grep, { pattern: "absent" }, context))).toBe("No files found");
    expect(runText(await runTool(grep, { pattern: "absent", output_mode: "content" }, context))).toBe("No matches found");
    expect(runText(await runTool(grep, { pattern: "absent", output_mode: "count" }, context))).toBe(
      "No matches found\n\nFound 0 total occurrences across 0 files.",
    );
  });
});

describe("Grep: options", () => {
  it("maps -i, glob, type, multiline and context flags onto the query; -C wins over -A/-B", async () => {
    const { workspace, queries } = recordingWorkspace(project);
    const context = toolContext(workspace);
    await runTool(
      grep,
      { pattern: "todo", "-i": true, glob: "*.ts", type: "ts", multiline: true, output_mode: "content", "-A": 1, "-B": 2, "-C": 3, "-n": false },
      context,
    );
    expect(queries[0]).toEqual({
      pattern: "todo",
      outputMode: "content",
      glob: "*.ts",
      type: "ts",
      caseInsensitive: true,
      multiline: true,
      headLimit: 250,
      lineNumbers: false,
      context: 3,
    });
    await runTool(grep, { pattern: "x", "-A": 1, "-B": 2 }, context);
    expect(queries[1]).not.toHaveProperty("after");
  });

  it("finds case-insensitively and filters by glob", async () => {
    const { workspace } = recordingWorkspace(project);
    expect(runText(await runTool(grep, { pattern: "todo", "-i": true, glob: "*.md" }, toolContext(workspace)))).toBe("Found 1 file\nREADME.md");
  });

  it("shows context lines and separators", async () => {
    const { workspace } = recordingWorkspace({ "a.txt": "1\n2\nhit\n4\n5\n6\n7\nhit\n" });
    const run = await runTool(grep, { pattern: "hit", output_mode: "content", "-C": 1 }, toolContext(workspace));
    expect(runText(run)).toBe("a.txt-2-2\na.txt:3:hit\na.txt-4-4\n--\na.txt-7-7\na.txt:8:hit");
  });

  it("caps results at 250 by default with a pagination note; head_limit 0 means no cap", async () => {
    const { workspace, queries } = recordingWorkspace({ "many.txt": Array.from({ length: 300 }, () => "hit").join("\n") });
    const context = toolContext(workspace);
    const capped = expectResult(await runTool(grep, { pattern: "hit", output_mode: "content" }, context));
    expect(
      String(capped.content)
        .split("\n")
        .filter((line) => line.startsWith("many.txt")),
    ).toHaveLength(250);
    expect(capped.content).toMatch(/\n\n\[Showing results with pagination = limit: 250\]$/);
    expect(capped.result.output).toMatchObject({ appliedLimit: 250, numLines: 250 });
    const all = expectResult(await runTool(grep, { pattern: "hit", output_mode: "content", head_limit: 0 }, context));
    expect(all.result.output).toMatchObject({ numLines: 300 });
    expect(queries[1]).not.toHaveProperty("headLimit");
    const files = expectResult(await runTool(grep, { pattern: "hit", head_limit: "1" }, context));
    expect(files.content).toBe("Found 1 file\nmany.txt");
  });
});

describe("Grep: errors", () => {
  it("validates the path", async () => {
    const { workspace } = recordingWorkspace(project);
    const context = toolContext(workspace);
    expect(runText(await runTool(grep, { pattern: "x", path: "/workspace/missing" }, context))).toBe(
      "Path does not exist: /workspace/missing. Note: your current working directory is /workspace.",
    );
    expect(await runTool(grep, { pattern: "x", path: "/etc" }, context)).toMatchObject({ stage: "validation", code: "outside_workspace" });
    expect(expectResult(await runTool(grep, { pattern: "x", path: "/workspace/README.md" }, context)).isError).toBe(false);
  });

  it("turns a bad regular expression into an error result the model can fix", async () => {
    const { workspace } = recordingWorkspace(project);
    const run = expectResult(await runTool(grep, { pattern: "foo(" }, toolContext(workspace)));
    expect(run.isError).toBe(true);
    expect(run.content).toMatch(/^Invalid pattern: regex parse error/);
  });

  it("rejects an empty pattern and an unknown output mode before searching", async () => {
    const { workspace, queries } = recordingWorkspace(project);
    expect((await runTool(grep, { pattern: "" }, toolContext(workspace))).stage).toBe("input");
    expect((await runTool(grep, { pattern: "x", output_mode: "lines" }, toolContext(workspace))).stage).toBe("input");
    expect(queries).toHaveLength(0);
  });
});
