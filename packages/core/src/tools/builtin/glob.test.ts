import { describe, expect, it } from "vitest";
import { createMemoryWorkspace } from "../../testing/memory-workspace.ts";
import { createGlobTool, globResultLimit } from "./glob.ts";
import { expectResult, runText, runTool, toolContext } from "./tool-test-support.ts";

const glob = createGlobTool();

describe("Glob", () => {
  it("lists matches relative to the working directory, newest first, like Claude Code", async () => {
    const workspace = createMemoryWorkspace({ "src/old.ts": "", "src/lib/mid.ts": "", "README.md": "", "src/new.ts": "" });
    const readings = [100, 105];
    const timed = createGlobTool({ now: () => readings.shift() ?? 0 });
    const run = expectResult(await runTool(timed, { pattern: "src/**/*.ts" }, toolContext(workspace)));
    expect(run.content).toBe("src/new.ts\nsrc/lib/mid.ts\nsrc/old.ts");
    expect(run.result.output).toEqual({ filenames: ["src/new.ts", "src/lib/mid.ts", "src/old.ts"], durationMs: 5, numFiles: 3, truncated: false });
  });

  it("searches a given directory, absolute or relative", async () => {
    const workspace = createMemoryWorkspace({ "src/a.ts": "", "test/b.ts": "" });
    expect(runText(await runTool(glob, { pattern: "*.ts", path: "/workspace/test" }, toolContext(workspace)))).toBe("test/b.ts");
    expect(runText(await runTool(glob, { pattern: "*.ts", path: "src" }, toolContext(workspace)))).toBe("src/a.ts");
  });

  it("says No files found", async () => {
    const workspace = createMemoryWorkspace({ "a.md": "" });
    expect(runText(await runTool(glob, { pattern: "**/*.rs" }, toolContext(workspace)))).toBe("No files found");
  });

  it("stops at 100 files with Claude Code's truncation note", async () => {
    const files = Object.fromEntries(Array.from({ length: 120 }, (_, index) => [`f${String(index).padStart(3, "0")}.txt`, ""]));
    const run = expectResult(await runTool(glob, { pattern: "*.txt" }, toolContext(createMemoryWorkspace(files))));
    const lines = String(run.content).split("\n");
    expect(lines).toHaveLength(globResultLimit + 1);
    expect(lines.at(-1)).toBe("(Results are truncated. Consider using a more specific path or pattern.)");
    expect(run.result.output).toMatchObject({ numFiles: 100, truncated: true });
  });

  it("validates the directory: missing, not a directory, outside the workspace", async () => {
    const workspace = createMemoryWorkspace({ "a.txt": "" });
    const context = toolContext(workspace);
    expect(runText(await runTool(glob, { pattern: "*", path: "/workspace/nope" }, context))).toBe(
      "Directory does not exist: /workspace/nope. Note: your current working directory is /workspace.",
    );
    expect(runText(await runTool(glob, { pattern: "*", path: "/workspace/a.txt" }, context))).toBe("Path is not a directory: /workspace/a.txt");
    expect(await runTool(glob, { pattern: "*", path: "/etc" }, context)).toMatchObject({ stage: "validation", code: "outside_workspace" });
  });

  it("turns a pattern that climbs out of the workspace into an error result", async () => {
    const workspace = createMemoryWorkspace({ "a.txt": "" });
    const run = expectResult(await runTool(glob, { pattern: "../**/*" }, toolContext(workspace)));
    expect(run.isError).toBe(true);
    expect(run.content).toContain("is outside the workspace");
  });
});
