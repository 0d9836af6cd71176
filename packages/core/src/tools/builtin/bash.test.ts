import { describe, expect, it } from "vitest";
import { createMemoryWorkspace, type ExecScript } from "../../testing/memory-workspace.ts";
import { WorkspaceError, type Workspace } from "../../workspace/port.ts";
import { bashLimits, createBashTool } from "./bash.ts";
import { expectResult, runTool, toolContext } from "./tool-test-support.ts";

const bash = createBashTool();

function workspaceWith(script: ExecScript) {
  return createMemoryWorkspace({ "README.md": "" }, { exec: script });
}

describe("Bash: results", () => {
  it("returns output as Claude Code's transcript shows it", async () => {
    const workspace = workspaceWith(() => ({ stdout: "README.md\npackage.json\nsrc\n" }));
    const run = expectResult(await runTool(bash, { command: "ls", description: "List files in current directory" }, toolContext(workspace)));
    expect(run.content).toBe("README.md\npackage.json\nsrc");
    expect(run.isError).toBe(false);
    expect(run.result.output).toMatchObject({
      stdout: "README.md\npackage.json\nsrc",
      stderr: "",
      interrupted: false,
      isImage: false,
      noOutputExpected: false,
      exitCode: 0,
    });
  });

  it("runs in the session's persistent shell with the default timeout and output cap", async () => {
    const workspace = workspaceWith((command) => (command.startsWith("cd ") ? { cwd: command.slice(3) } : { stdout: "ok" }));
    const context = toolContext(workspace, { sessionId: "session-9" });
    await runTool(bash, { command: "cd src" }, context);
    const run = expectResult(await runTool(bash, { command: "pwd", timeout: 5000 }, context));
    expect(workspace.execCalls).toEqual([
      { command: "cd src", shellId: "session-9", timeoutMs: bashLimits.defaultTimeoutMs, maxOutputChars: bashLimits.maxOutputChars },
      { command: "pwd", shellId: "session-9", timeoutMs: 5000, maxOutputChars: bashLimits.maxOutputChars },
    ]);
    expect(run.result.output).toMatchObject({ cwd: "/workspace/src" });
    await runTool(bash, { command: "true" }, toolContext(workspace, { sessionId: "session-9", agentId: "agent-2" }));
    expect(workspace.execCalls.at(-1)?.shellId).toBe("agent-2");
  });

  it("reports a non-zero exit code first, with stdout and stderr merged in arrival order", async () => {
    const workspace = workspaceWith(() => ({
      exitCode: 2,
      chunks: [
        { stream: "stdout", data: "building\n" },
        { stream: "stderr", data: "error: missing semicolon\n" },
        { stream: "stdout", data: "1 error\n" },
      ],
    }));
    const run = expectResult(await runTool(bash, { command: "make" }, toolContext(workspace)));
    expect(run.isError).toBe(true);
    expect(run.content).toBe("Exit code 2\nbuilding\nerror: missing semicolon\n1 error");
    expect(run.progress).toEqual([
      { type: "bash_progress", stream: "stdout", chunk: "building\n" },
      { type: "bash_progress", stream: "stderr", chunk: "error: missing semicolon\n" },
      { type: "bash_progress", stream: "stdout", chunk: "1 error\n" },
    ]);
  });

  it("says so when a command printed nothing, and marks commands that print nothing on success", async () => {
    const workspace = workspaceWith(() => ({}));
    const run = expectResult(await runTool(bash, { command: "mkdir -p a && touch a/b" }, toolContext(workspace)));
    expect(run.content).toBe("(Bash completed with no output)");
    expect(run.result.output).toMatchObject({ noOutputExpected: true });
  });

  it("keeps the start and the end of a huge output and says how much was cut", async () => {
    const huge = `${"a".repeat(20_000)}MIDDLE${"z".repeat(20_000)}`;
    const workspace = workspaceWith(() => ({ stdout: huge }));
    const run = expectResult(await runTool(bash, { command: "cat big.log" }, toolContext(workspace)));
    const content = String(run.content);
    expect(content.startsWith("a".repeat(15_000))).toBe(true);
    expect(content.endsWith("z".repeat(15_000))).toBe(true);
    expect(content).toContain("\n\n... [10006 characters of output truncated] ...\n\n");
    expect(content).not.toContain("MIDDLE");
    expect(run.result.output).toMatchObject({ truncated: true });
  });

  it("times out, reporting it as an error", async () => {
    const workspace = workspaceWith(() => ({ hang: true, stdout: "started\n" }));
    const run = expectResult(await runTool(bash, { command: "sleep 100", timeout: 20 }, toolContext(workspace)));
    expect(run.isError).toBe(true);
    expect(run.content).toBe("started\nCommand timed out after 20ms");
    expect(run.result.output).toMatchObject({ timedOut: true, interrupted: false });
  });

  it("rejects a timeout above ten minutes before running anything", async () => {
    const workspace = workspaceWith(() => ({}));
    expect((await runTool(bash, { command: "ls", timeout: 600_001 }, toolContext(workspace))).stage).toBe("input");
    expect(workspace.execCalls).toHaveLength(0);
  });

  it("turns an unavailable sandbox into an error result that says so", async () => {
    const base = createMemoryWorkspace({});
    const workspace: Workspace = {
      ...base,
      root: base.root,
      exec: async () => {
        throw new WorkspaceError("sandbox_unavailable", "bubblewrap is not installed");
      },
    };
    const run = expectResult(await runTool(bash, { command: "ls" }, toolContext(workspace)));
    expect(run).toMatchObject({ isError: true, content: "The command sandbox is unavailable, so commands cannot run: bubblewrap is not installed" });
  });
});

describe("Bash: read-only analysis", () => {
  it("is neither read-only nor concurrency-safe unless an injected analyzer says so", () => {
    expect(bash.isReadOnly({ command: "ls" })).toBe(false);
    expect(bash.isConcurrencySafe({ command: "ls" })).toBe(false);
    const analyzed = createBashTool({ isReadOnlyCommand: (command) => command === "git status" });
    expect(analyzed.isReadOnly({ command: "git status" })).toBe(true);
    expect(analyzed.isConcurrencySafe({ command: "git status" })).toBe(true);
    expect(analyzed.isReadOnly({ command: "rm -rf x" })).toBe(false);
  });
});
