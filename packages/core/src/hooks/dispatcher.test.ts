import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createNodeHookRunner } from "../node/hook-runner.ts";
import type { HookGroup } from "../permissions/settings-merge.ts";
import { createHookDispatcher } from "./dispatcher.ts";

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), "cairn-hooks-"));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

const runner = createNodeHookRunner({ baseEnv: { PATH: process.env.PATH } });
const signal = () => new AbortController().signal;

function dispatcher(hooks: HookGroup[], options: { trusted?: boolean; allowManagedHooksOnly?: boolean } = {}) {
  return createHookDispatcher({
    getSettings: () => ({ hooks, allowManagedHooksOnly: options.allowManagedHooksOnly ?? false }),
    runner,
    sessionId: "session-1",
    transcriptPath: "/t/session-1.jsonl",
    cwd,
    trusted: options.trusted ?? true,
    getPermissionMode: () => "default",
  });
}

const pre = (matcher: string | undefined, command: string, extra: Partial<HookGroup> = {}): HookGroup => ({
  event: "PreToolUse",
  hooks: [{ type: "command", command }],
  source: "userSettings",
  ...(matcher === undefined ? {} : { matcher }),
  ...extra,
});

const json = (value: unknown) => `printf '%s' '${JSON.stringify(value)}'`;
const writeInput = { tool_name: "Write", tool_input: { file_path: "/ws/a.ts", content: "x" }, tool_use_id: "tu-1" };

describe("PreToolUse hooks with real sh commands", () => {
  test("the JSON input arrives on stdin with the common fields", async () => {
    const outcome = await dispatcher([pre("Write", `cat > ${cwd}/input.json`)]).dispatch("PreToolUse", writeInput, { signal: signal(), matchValue: "Write" });
    expect(outcome.errors).toEqual([]);
    expect(JSON.parse(await readFile(join(cwd, "input.json"), "utf8"))).toEqual({
      session_id: "session-1",
      transcript_path: "/t/session-1.jsonl",
      cwd,
      hook_event_name: "PreToolUse",
      permission_mode: "default",
      ...writeInput,
    });
    expect(outcome.ran).toEqual([{ hookName: `cat > ${cwd}/input.json`, durationMs: expect.any(Number), exitCode: 0 }]);
  });

  test("exit 0 with JSON: permissionDecision, updatedInput, additionalContext, systemMessage", async () => {
    const hook = json({
      systemMessage: "checked",
      suppressOutput: true,
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        permissionDecisionReason: "touches config",
        updatedInput: { file_path: "/ws/b.ts", content: "y" },
        additionalContext: "remember the style guide",
      },
    });
    const outcome = await dispatcher([pre("Write|Edit", hook)]).dispatch("PreToolUse", writeInput, { signal: signal(), matchValue: "Write" });
    expect(outcome).toMatchObject({
      blocked: null,
      permissionDecision: { behavior: "ask", reason: "touches config", hookName: expect.stringMatching(/^printf .*\.\.\.$/) },
      updatedInput: { file_path: "/ws/b.ts", content: "y" },
      additionalContext: ["remember the style guide"],
      systemMessages: ["checked"],
      suppressOutput: true,
      errors: [],
    });
  });

  test("exit 2 blocks with stderr as the reason; another exit code is a non-blocking error", async () => {
    const outcome = await dispatcher([pre("*", "echo 'no writes to generated files' >&2; exit 2"), pre("", "echo oops >&2; exit 1")]).dispatch(
      "PreToolUse",
      writeInput,
      { signal: signal(), matchValue: "Write" },
    );
    expect(outcome.blocked).toEqual({ hookName: "echo 'no writes to generated files' >&2; exit 2", reason: "no writes to generated files" });
    expect(outcome.errors).toEqual([{ hookName: "echo oops >&2; exit 1", message: "exited with code 1: oops" }]);
  });

  test("deny wins over ask and allow across hooks; decision approve counts as allow", async () => {
    const outcome = await dispatcher([
      pre(undefined, json({ decision: "approve", reason: "fine" })),
      pre(undefined, json({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "secrets" } })),
      pre(undefined, json({ hookSpecificOutput: { permissionDecision: "ask" } })),
    ]).dispatch("PreToolUse", writeInput, { signal: signal(), matchValue: "Write" });
    expect(outcome.permissionDecision).toMatchObject({ behavior: "deny", reason: "secrets" });
  });

  test("a hook past its timeout is stopped and reported", async () => {
    const outcome = await dispatcher([{ ...pre(undefined, "sleep 30"), hooks: [{ type: "command", command: "sleep 30", timeout: 0.3 }] }]).dispatch(
      "PreToolUse",
      writeInput,
      { signal: signal(), matchValue: "Write" },
    );
    expect(outcome.errors).toEqual([{ hookName: "sleep 30", message: "timed out after 0.3 s and was stopped" }]);
    expect(outcome.ran[0]?.exitCode).toBeNull();
  });

  test("matching hooks run in parallel", async () => {
    // Each hook waits for the other's file: run one after the other, the first would time out.
    const waitFor = (mine: string, theirs: string) => `touch ${cwd}/${mine}; while [ ! -f ${cwd}/${theirs} ]; do sleep 0.02; done; echo ok`;
    const outcome = await dispatcher([
      { ...pre(undefined, ""), hooks: [{ type: "command", command: waitFor("a", "b"), timeout: 10 }] },
      { ...pre(undefined, ""), hooks: [{ type: "command", command: waitFor("b", "a"), timeout: 10 }] },
    ]).dispatch("PreToolUse", writeInput, { signal: signal(), matchValue: "Write" });
    expect(outcome.errors).toEqual([]);
    expect(outcome.ran.map((ran) => ran.exitCode)).toEqual([0, 0]);
  });

  test("matchers pick the hooks; identical commands run once", async () => {
    const log = `${cwd}/log`;
    const hooks = [
      pre("Write|Edit", `echo edit >> ${log}`),
      pre("Bash", `echo bash >> ${log}`),
      pre("Notebook.*", `echo nb >> ${log}`),
      pre("Write", `echo edit >> ${log}`),
    ];
    const outcome = await dispatcher(hooks).dispatch("PreToolUse", writeInput, { signal: signal(), matchValue: "Write" });
    expect(outcome.ran).toHaveLength(1);
    expect(await readFile(log, "utf8")).toBe("edit\n");
    const none = await dispatcher(hooks).dispatch("PreToolUse", { tool_name: "Read" }, { signal: signal(), matchValue: "Read" });
    expect(none.ran).toEqual([]);
  });
});

describe("trust, sources and other events", () => {
  test("project and local hooks run only in a trusted workspace", async () => {
    const log = `${cwd}/log`;
    const hooks = [
      pre(undefined, `echo user >> ${log}`),
      pre(undefined, `echo project >> ${log}`, { source: "projectSettings" }),
      pre(undefined, `echo local >> ${log}`, { source: "localSettings" }),
    ];
    await dispatcher(hooks, { trusted: false }).dispatch("PreToolUse", writeInput, { signal: signal(), matchValue: "Write" });
    expect(await readFile(log, "utf8")).toBe("user\n");
    const trusted = await dispatcher(hooks, { trusted: true }).dispatch("PreToolUse", writeInput, { signal: signal(), matchValue: "Write" });
    expect(trusted.ran).toHaveLength(3);
  });

  test("allowManagedHooksOnly keeps only policy hooks", async () => {
    const outcome = await dispatcher([pre(undefined, "echo user"), pre(undefined, "echo policy", { source: "policySettings" })], {
      allowManagedHooksOnly: true,
    }).dispatch("PreToolUse", writeInput, { signal: signal(), matchValue: "Write" });
    expect(outcome.ran.map((ran) => ran.hookName)).toEqual(["echo policy"]);
  });

  test("UserPromptSubmit: plain stdout becomes context; continue false stops the run", async () => {
    const hooks: HookGroup[] = [
      { event: "UserPromptSubmit", hooks: [{ type: "command", command: "echo 'Current branch: main'" }], source: "userSettings" },
      { event: "UserPromptSubmit", hooks: [{ type: "command", command: json({ continue: false, stopReason: "quota reached" }) }], source: "userSettings" },
    ];
    const outcome = await dispatcher(hooks).dispatch("UserPromptSubmit", { prompt: "hi" }, { signal: signal() });
    expect(outcome.additionalContext).toEqual(["Current branch: main"]);
    expect(outcome.preventContinuation).toMatchObject({ stopReason: "quota reached" });
  });

  test("PostToolUse decision block feeds the reason back; invalid JSON fields are an error", async () => {
    const hooks: HookGroup[] = [
      {
        event: "PostToolUse",
        hooks: [{ type: "command", command: json({ decision: "block", reason: "lint failed: missing semicolon" }) }],
        source: "userSettings",
      },
      { event: "PostToolUse", hooks: [{ type: "command", command: json({ hookSpecificOutput: { permissionDecision: "maybe" } }) }], source: "userSettings" },
    ];
    const outcome = await dispatcher(hooks).dispatch("PostToolUse", { ...writeInput, tool_response: { ok: true } }, { signal: signal(), matchValue: "Write" });
    expect(outcome.blocked).toMatchObject({ reason: "lint failed: missing semicolon" });
    expect(outcome.errors[0]?.message).toContain("invalid hook output");
  });
});
