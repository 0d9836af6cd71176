import { describe, expect, test } from "vitest";
import { interpretHookResult } from "./hook-output.ts";
import type { HookEventName, HookRunResult } from "./port.ts";

const result = (overrides: Partial<HookRunResult>): HookRunResult => ({
  exitCode: 0,
  stdout: "",
  stderr: "",
  timedOut: false,
  aborted: false,
  durationMs: 1,
  ...overrides,
});
const interpret = (event: HookEventName, overrides: Partial<HookRunResult>) => interpretHookResult(event, "hook.sh", result(overrides), 60_000);

describe("interpretHookResult: Claude Code's per-event contract", () => {
  test.each<[HookEventName, boolean]>([
    ["PreToolUse", true],
    ["PermissionRequest", true],
    ["PostToolUse", true],
    ["PostToolUseFailure", true],
    ["UserPromptSubmit", true],
    ["Stop", true],
    ["SubagentStop", true],
    ["SessionStart", false],
    ["SessionEnd", false],
    ["Notification", false],
    ["PreCompact", false],
  ])("exit 2 on %s blocks: %s (otherwise stderr goes to the user only)", (event, blocks) => {
    const verdict = interpret(event, { exitCode: 2, stderr: "no\n" });
    if (blocks) expect(verdict).toEqual({ hookName: "hook.sh", blocked: "no" });
    else expect(verdict).toEqual({ hookName: "hook.sh", systemMessage: "no" });
  });

  test("PermissionRequest: allow with updatedInput, deny with message and interrupt", () => {
    const allow = interpret("PermissionRequest", {
      stdout: JSON.stringify({
        hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedInput: { command: "ls -la" } } },
      }),
    });
    expect(allow.permissionRequest).toEqual({ behavior: "allow", updatedInput: { command: "ls -la" } });
    const deny = interpret("PermissionRequest", {
      stdout: JSON.stringify({ hookSpecificOutput: { decision: { behavior: "deny", message: "not today", interrupt: true } } }),
    });
    expect(deny.permissionRequest).toEqual({ behavior: "deny", message: "not today", interrupt: true });
    const elsewhere = interpret("PreToolUse", { stdout: JSON.stringify({ hookSpecificOutput: { decision: { behavior: "allow" } } }) });
    expect(elsewhere.permissionRequest).toBeUndefined();
  });

  test("output that is not JSON is plain output with a notice; context events take it as context", () => {
    expect(interpret("PostToolUse", { stdout: "formatted 3 files\n" })).toEqual({
      hookName: "hook.sh",
      output: "formatted 3 files",
      notice: "printed output that is not JSON; it was treated as plain output",
    });
    expect(interpret("Stop", { stdout: '{"decision": "block", ' })).toMatchObject({ notice: "printed invalid JSON; it was treated as plain output" });
    expect(interpret("SessionStart", { stdout: "branch main\n" })).toEqual({ hookName: "hook.sh", additionalContext: "branch main", output: "branch main" });
  });

  test("common fields: continue false with stopReason, suppressOutput, systemMessage", () => {
    const verdict = interpret("PostToolUse", {
      stdout: JSON.stringify({ continue: false, stopReason: "budget spent", suppressOutput: true, systemMessage: "heads up" }),
    });
    expect(verdict).toEqual({ hookName: "hook.sh", stop: { stopReason: "budget spent" }, suppressOutput: true, systemMessage: "heads up" });
    expect(interpret("PostToolUse", { stdout: '{"systemMessage":"x"}' }).output).toBe('{"systemMessage":"x"}');
  });

  test("a hung hook is reported as stopped; other exit codes are non-blocking errors", () => {
    expect(interpret("Stop", { exitCode: null, timedOut: true })).toEqual({ hookName: "hook.sh", error: "timed out after 60 s and was stopped" });
    expect(interpret("Stop", { exitCode: 1, stderr: "boom" })).toEqual({ hookName: "hook.sh", error: "exited with code 1: boom" });
  });
});
