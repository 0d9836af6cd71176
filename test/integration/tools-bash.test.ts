import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { findToolByName, type ToolProgress, type ToolResult } from "@cairn/core";
import type { AssistantMessage } from "@cairn/core/schema";
import { createToolsFixture, type ToolsFixture } from "./tools-support.ts";

let fixture: ToolsFixture | undefined;
afterEach(async () => {
  await fixture?.dispose();
  fixture = undefined;
});

const meta = {
  toolUseId: "toolu_1",
  assistantMessage: { type: "assistant", uuid: "u", timestamp: "t", message: { id: "m", role: "assistant", model: "m", content: [] } } as AssistantMessage,
};

describe("Bash against the real, sandboxed worker", () => {
  it("runs a command and shows its output as Claude Code does", async () => {
    fixture = await createToolsFixture({ "README.md": "", "package.json": "{}", "src/a.ts": "" });
    const run = await fixture.run("Bash", { command: "ls", description: "List files in current directory" });
    expect(run.text).toBe("README.md\npackage.json\nsrc");
    expect(run.output).toMatchObject({ stdout: "README.md\npackage.json\nsrc", stderr: "", interrupted: false, isImage: false, exitCode: 0, sandboxed: true });
  });

  it("keeps cwd and exported variables between calls of one session, not across sessions", async () => {
    fixture = await createToolsFixture({ "sub/file.txt": "" });
    const session = fixture.context();
    await fixture.run("Bash", { command: "cd sub && export GREETING=hello" }, session);
    expect((await fixture.run("Bash", { command: 'pwd; echo "$GREETING"; ls' }, session)).text).toBe(`${join(fixture.root, "sub")}\nhello\nfile.txt`);
    const other = fixture.context({ sessionId: "another-session" });
    expect((await fixture.run("Bash", { command: 'pwd; echo "[$GREETING]"' }, other)).text).toBe(`${fixture.root}\n[]`);
  });

  it("reports the exit code and merges stderr", async () => {
    fixture = await createToolsFixture();
    const run = await fixture.run("Bash", { command: "echo out; echo err >&2; exit 3" });
    expect(run.isError).toBe(true);
    expect(run.text.split("\n")[0]).toBe("Exit code 3");
    expect(run.text.split("\n").slice(1).sort()).toEqual(["err", "out"]);
  });

  it("streams output as progress while the command runs", async () => {
    fixture = await createToolsFixture();
    const run = await fixture.run("Bash", { command: "echo one; sleep 0.2; echo two" });
    const chunks = run.progress.map((item) => (item as { chunk: string }).chunk).join("");
    expect(chunks).toBe("one\ntwo\n");
    expect(run.progress.length).toBeGreaterThanOrEqual(2);
  });

  it("writes inside the workspace are visible to Read; writes outside never reach the host", async () => {
    fixture = await createToolsFixture();
    await fixture.run("Bash", { command: "printf 'made by bash\\n' > made.txt" });
    expect((await fixture.run("Read", { file_path: join(fixture.root, "made.txt") })).text).toBe("1\tmade by bash\n2\t");
    const readOnly = await fixture.run("Bash", { command: "touch /usr/cairn-escape-test" });
    expect(readOnly.isError).toBe(true);
    expect(readOnly.text).toContain("Read-only file system");
    // The sandbox hides the workspace's parent behind a scratch mount: the write "succeeds" there but never lands on disk.
    await fixture.run("Bash", { command: `echo x > ${join(fixture.parent, "escaped.txt")}` });
    await expect(readFile(join(fixture.parent, "escaped.txt"))).rejects.toThrow();

    // Positive control: without the sandbox the same write lands, so the check above can fail.
    const unsandboxed = await createToolsFixture({}, { sandbox: false });
    try {
      const control = await unsandboxed.run("Bash", { command: `echo x > ${join(unsandboxed.parent, "escaped.txt")}` });
      expect(control.isError).toBe(false);
      expect(await readFile(join(unsandboxed.parent, "escaped.txt"), "utf8")).toBe("x\n");
    } finally {
      await unsandboxed.dispose();
    }
  });

  it("times out with a clear message", async () => {
    fixture = await createToolsFixture();
    const session = fixture.context();
    // Start the persistent shell first, so the timeout covers only the command (a busy machine can take seconds to start a sandbox).
    await fixture.run("Bash", { command: "true" }, session);
    const run = await fixture.run("Bash", { command: "echo started; sleep 30", timeout: 1500 }, session);
    expect(run.isError).toBe(true);
    expect(run.text).toMatch(/^started\nCommand timed out after 2s/);
    expect(run.output).toMatchObject({ timedOut: true });
  });

  it("stops a running command when the signal aborts", async () => {
    fixture = await createToolsFixture();
    const bash = findToolByName(fixture.tools, "Bash")!;
    const controller = new AbortController();
    const call = bash.call({ command: "echo working; sleep 30" }, fixture.context({ signal: controller.signal }), meta) as AsyncGenerator<
      ToolProgress,
      ToolResult
    >;
    const first = await call.next();
    expect(first.value).toMatchObject({ data: { chunk: "working\n" } });
    const started = Date.now();
    controller.abort();
    let step = await call.next();
    while (!step.done) step = await call.next();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(step.value).toMatchObject({ isError: true, output: { interrupted: true } });
    expect(bash.renderResult?.(step.value.output, "t")).toContain("<error>Command was aborted before completion</error>");
  });

  it("runs a background job, reads its output incrementally and kills it", async () => {
    fixture = await createToolsFixture();
    const session = fixture.context();
    const started = await fixture.run("Bash", { command: "echo ready; while true; do sleep 0.1; done", run_in_background: true }, session);
    const id = /^Command running in background with ID: (\S+)$/.exec(started.text)?.[1];
    expect(id).toBeDefined();
    await vi.waitFor(async () => {
      const output = await fixture!.run("BashOutput", { bash_id: id }, session);
      expect(output.text).toMatch(/^<status>running<\/status>\n\n<stdout>\nready\n<\/stdout>/);
    });
    expect((await fixture.run("BashOutput", { bash_id: id }, session)).text).toMatch(/^<status>running<\/status>\n\n<timestamp>/);
    const killed = await fixture.run("KillShell", { shell_id: id }, session);
    expect(JSON.parse(killed.text)).toEqual({ message: `Successfully killed shell: ${id} (echo ready; while true; do sleep 0.1; done)`, shell_id: id });
    expect((await fixture.run("BashOutput", { bash_id: id }, session)).text).toMatch(/^<status>killed<\/status>/);
    expect((await fixture.run("BashOutput", { bash_id: "no-such-job" }, session)).text).toBe("No shell found with ID: no-such-job");
  });
});
