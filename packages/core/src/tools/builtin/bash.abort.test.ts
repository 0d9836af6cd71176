import { describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../schema/messages.ts";
import { createMemoryWorkspace } from "../../testing/memory-workspace.ts";
import type { ExecOptions, Workspace } from "../../workspace/port.ts";
import type { ToolProgress, ToolResult } from "../tool.ts";
import { createBashTool, type BashInput, type BashOutput } from "./bash.ts";
import { expectResult, runTool, toolContext } from "./tool-test-support.ts";

const bash = createBashTool();
const meta = {
  toolUseId: "toolu_1",
  assistantMessage: { type: "assistant", uuid: "u", timestamp: "t", message: { id: "m", role: "assistant", model: "m", content: [] } } as AssistantMessage,
};

/** A workspace whose exec prints one line, then waits for its signal; records the signals it got. */
function hangingWorkspace() {
  const base = createMemoryWorkspace({});
  const signals: AbortSignal[] = [];
  const workspace: Workspace = {
    ...base,
    root: base.root,
    async exec(_command: string, options: ExecOptions) {
      signals.push(options.signal);
      options.onOutput?.({ stream: "stdout", data: "working\n" });
      await new Promise<void>((resolve) => options.signal.addEventListener("abort", () => resolve(), { once: true }));
      return {
        exitCode: null,
        signal: "SIGTERM",
        stdout: "working\n",
        stderr: "",
        timedOut: false,
        interrupted: true,
        truncated: false,
        cwd: base.root,
        sandboxed: true,
      };
    },
  };
  return { workspace, signals };
}

function start(input: BashInput, context: ReturnType<typeof toolContext>): AsyncGenerator<ToolProgress, ToolResult<BashOutput>, void> {
  return bash.call(input, context, meta) as AsyncGenerator<ToolProgress, ToolResult<BashOutput>, void>;
}

describe("Bash: abort", () => {
  it("stops the command when the signal aborts, keeping what it printed", async () => {
    const { workspace, signals } = hangingWorkspace();
    const controller = new AbortController();
    const call = start({ command: "npm test" }, toolContext(workspace, { signal: controller.signal }));
    const first = await call.next();
    expect(first).toEqual({ done: false, value: { data: { type: "bash_progress", stream: "stdout", chunk: "working\n" } } });
    controller.abort();
    const last = await call.next();
    expect(last.done).toBe(true);
    expect(last.value).toMatchObject({
      isError: true,
      output: { stdout: "working", interrupted: true },
    });
    expect(bash.renderResult?.((last.value as ToolResult<BashOutput>).output, "t")).toBe("working\n<error>Command was aborted before completion</error>");
    expect(signals[0]?.aborted).toBe(true);
  });

  it("aborts the command when the consumer stops reading, and waits for it in finally", async () => {
    const { workspace, signals } = hangingWorkspace();
    const call = start({ command: "npm run dev" }, toolContext(workspace));
    await call.next();
    expect(signals[0]?.aborted).toBe(false);
    await call.return(undefined as never);
    expect(signals[0]?.aborted).toBe(true);
  });

  it("does not start a command when the signal is already aborted", async () => {
    const { workspace, signals } = hangingWorkspace();
    const controller = new AbortController();
    controller.abort();
    const run = expectResult(await runTool(bash, { command: "ls" }, toolContext(workspace, { signal: controller.signal })));
    expect(run).toMatchObject({ isError: true, content: "Interrupted: the operation was aborted before it completed." });
    expect(signals).toHaveLength(0);
  });
});
