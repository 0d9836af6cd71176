import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runTranscriptCommand } from "./transcript.ts";

const fixture = fileURLToPath(new URL("../../../core/src/node/__fixtures__/claude-code/explore-edit.jsonl", import.meta.url));
let cairnHome: string;
beforeEach(async () => {
  cairnHome = await mkdtemp(join(tmpdir(), "cairn-cli-transcript-"));
});
afterEach(async () => {
  await rm(cairnHome, { recursive: true, force: true });
});

async function run(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runTranscriptCommand(argv, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: { CAIRN_HOME: cairnHome },
  });
  return { code, stdout, stderr };
}

describe("cairn transcript", () => {
  it("imports a Claude Code transcript and exports it as JSONL and Markdown", async () => {
    const imported = await run(["import", fixture, "--cwd", "/work/demo"]);
    expect(imported).toMatchObject({ code: 0, stderr: "" });
    expect(imported.stdout).toContain("Imported 10 messages as session 94363ae5-98e2-47ed-9da1-dac87ebf2038");

    const jsonl = await run(["export", "94363ae5-98e2-47ed-9da1-dac87ebf2038", "--format", "jsonl"]);
    expect(jsonl.code).toBe(0);
    const lines = jsonl.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(lines.map((line) => line.type)).toEqual([
      "cairn-session",
      "user",
      "assistant",
      "user",
      "user",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);

    const markdown = await run(["export", "94363ae5-98e2-47ed-9da1-dac87ebf2038", "--format", "markdown"]);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toMatch(/^# Find the TODOs/);
  });

  it("exits 2 on usage errors and 1 when the session or file does not exist", async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(["frobnicate"])).code).toBe(2);
    expect((await run(["export", "x", "--format", "pdf"])).code).toBe(2);
    expect((await run(["export", "x", "--bogus"])).code).toBe(2);
    const missing = await run(["export", "no-such-session"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("No session no-such-session");
    expect((await run(["import", join(cairnHome, "missing.jsonl")])).code).toBe(1);
  });
});
