import { describe, expect, it } from "vitest";
import { createMemoryWorkspace } from "../../testing/memory-workspace.ts";
import { createBashOutputTool, createKillShellTool } from "./bash-background.ts";
import { createBashTool } from "./bash.ts";
import { expectResult, runText, runTool, toolContext } from "./tool-test-support.ts";

const bash = createBashTool();
const bashOutput = createBashOutputTool({ now: () => Date.parse("2026-01-01T00:00:00.000Z") });
const killShell = createKillShellTool();

function serverWorkspace() {
  return createMemoryWorkspace(
    {},
    {
      exec: (command) =>
        command === "npm run dev" ? { hang: true, stdout: "ready on :3000\nGET /\n", stderr: "warn: slow\n" } : { stdout: "done\n", exitCode: 3 },
    },
  );
}

describe("Bash run_in_background, BashOutput and KillShell", () => {
  it("starts a job and returns its id", async () => {
    const workspace = serverWorkspace();
    const run = expectResult(await runTool(bash, { command: "npm run dev", run_in_background: true }, toolContext(workspace)));
    expect(run.content).toBe("Command running in background with ID: bash_1");
    expect(run.result.output).toMatchObject({ backgroundTaskId: "bash_1", interrupted: false });
    expect(workspace.execCalls).toHaveLength(0);
  });

  it("reads new output with its status, then nothing new", async () => {
    const workspace = serverWorkspace();
    const context = toolContext(workspace);
    await runTool(bash, { command: "npm run dev", run_in_background: true }, context);
    const first = expectResult(await runTool(bashOutput, { bash_id: "bash_1" }, context));
    expect(first.content).toBe(
      "<status>running</status>\n\n<stdout>\nready on :3000\nGET /\n</stdout>\n\n<stderr>\nwarn: slow\n</stderr>\n\n<timestamp>2026-01-01T00:00:00.000Z</timestamp>",
    );
    expect(first.result.output).toMatchObject({ shellId: "bash_1", command: "npm run dev", stdoutLines: 2, stderrLines: 1, exitCode: null });
    expect(runText(await runTool(bashOutput, { bash_id: "bash_1" }, context))).toBe(
      "<status>running</status>\n\n<timestamp>2026-01-01T00:00:00.000Z</timestamp>",
    );
  });

  it("filters lines with a regular expression, and validates it", async () => {
    const workspace = serverWorkspace();
    const context = toolContext(workspace);
    await runTool(bash, { command: "npm run dev", run_in_background: true }, context);
    const filtered = expectResult(await runTool(bashOutput, { bash_id: "bash_1", filter: "^GET" }, context));
    expect(filtered.result.output).toMatchObject({ stdout: "GET /", stderr: "", filterPattern: "^GET" });
    expect(await runTool(bashOutput, { bash_id: "bash_1", filter: "(" }, context)).toMatchObject({ stage: "validation", code: "invalid_filter" });
  });

  it("reports a finished job's exit code", async () => {
    const workspace = serverWorkspace();
    const context = toolContext(workspace);
    await runTool(bash, { command: "npm run build", run_in_background: true }, context);
    expect(runText(await runTool(bashOutput, { bash_id: "bash_1" }, context))).toBe(
      "<status>failed</status>\n\n<exit_code>3</exit_code>\n\n<stdout>\ndone\n</stdout>\n\n<timestamp>2026-01-01T00:00:00.000Z</timestamp>",
    );
  });

  it("kills a running job, in Claude Code's words, and says when a job already ended", async () => {
    const workspace = serverWorkspace();
    const context = toolContext(workspace);
    await runTool(bash, { command: "npm run dev", run_in_background: true }, context);
    await runTool(bash, { command: "npm run build", run_in_background: true }, context);
    const killed = expectResult(await runTool(killShell, { shell_id: "bash_1" }, context));
    expect(killed.content).toBe('{"message":"Successfully killed shell: bash_1 (npm run dev)","shell_id":"bash_1"}');
    expect(runText(await runTool(bashOutput, { bash_id: "bash_1" }, context))).toMatch(/^<status>killed<\/status>/);
    expect(runText(await runTool(killShell, { shell_id: "bash_2" }, context))).toBe(
      '{"message":"Shell bash_2 is not running (status: failed)","shell_id":"bash_2"}',
    );
  });

  it("reports unknown ids as errors", async () => {
    const context = toolContext(serverWorkspace());
    const output = expectResult(await runTool(bashOutput, { bash_id: "bash_9" }, context));
    expect(output).toMatchObject({ isError: true, content: "No shell found with ID: bash_9" });
    const kill = expectResult(await runTool(killShell, { shell_id: "bash_9" }, context));
    expect(kill).toMatchObject({ isError: true, content: "No shell found with ID: bash_9" });
  });

  it("needs no permission prompt to read or stop the session's own jobs", async () => {
    const context = toolContext(serverWorkspace());
    expect(await bashOutput.checkPermissions?.({ bash_id: "x" }, context)).toMatchObject({ behavior: "allow" });
    expect(await killShell.checkPermissions?.({ shell_id: "x" }, context)).toMatchObject({ behavior: "allow" });
  });
});
