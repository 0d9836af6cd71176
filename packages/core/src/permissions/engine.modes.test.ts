import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createNodeShellParser } from "../node/shell-parser.ts";
import { checkBypassPermissionsAllowed, assertBypassPermissionsAllowed, PermissionModeError } from "./modes.ts";
import type { ShellParser } from "./shell/shell-parser.ts";
import { createHarness, tools } from "./test-fixtures.ts";

let parser: ShellParser;
beforeAll(async () => {
  parser = await createNodeShellParser();
});
afterAll(() => parser.dispose());

describe("default mode", () => {
  test("read-only tools inside the workspace are allowed; outside they ask", async () => {
    const harness = createHarness({ parser });
    expect(await harness.engine.check(harness.args(tools.Read, { file_path: "/ws/src/a.ts" }))).toMatchObject({
      behavior: "allow",
      reason: { type: "mode", mode: "default" },
    });
    expect(await harness.engine.check(harness.args(tools.Grep, { pattern: "x" }))).toMatchObject({ behavior: "allow" });
    expect(await harness.engine.check(harness.args(tools.Read, { file_path: "/etc/passwd" }))).toMatchObject({
      behavior: "ask",
      reason: { type: "workspace" },
      suggestions: ["Read(//etc/**)"],
    });
    expect(await harness.engine.check(harness.args(tools.Read, { file_path: "/ws/../etc/passwd" }))).toMatchObject({ behavior: "ask" });
  });

  test("additional directories count as the workspace", async () => {
    const harness = createHarness({
      parser,
      layers: [{ source: "userSettings", settings: { permissions: { additionalDirectories: ["../docs", "~/notes"] } } }],
    });
    expect((await harness.engine.check(harness.args(tools.Read, { file_path: "/docs/a" }))).behavior).toBe("allow");
    expect((await harness.engine.check(harness.args(tools.Read, { file_path: "/home/dev/notes/a" }))).behavior).toBe("allow");
    expect((await harness.engine.check(harness.args(tools.Read, { file_path: "/home/dev/other" }))).behavior).toBe("ask");
  });

  test("edits ask; read-only Bash is allowed only when the whole command only reads", async () => {
    const harness = createHarness({ parser });
    expect(await harness.engine.check(harness.args(tools.Edit, { file_path: "/ws/src/a.ts" }))).toMatchObject({
      behavior: "ask",
      suggestions: ["Edit(/src/**)"],
    });
    expect(await harness.engine.check(harness.args(tools.Bash, { command: "git diff HEAD | head -50" }))).toMatchObject({
      behavior: "allow",
      reason: { type: "mode", reason: "read-only command" },
    });
    expect((await harness.engine.check(harness.args(tools.Bash, { command: "ls > files.txt" }))).behavior).toBe("ask");
    expect((await harness.engine.check(harness.args(tools.Bash, { command: "grep -r x . && rm y" }))).behavior).toBe("ask");
  });

  test("MCP tools are never auto-allowed as read-only", async () => {
    const harness = createHarness();
    expect((await harness.engine.check(harness.args(tools.memoryRead, {}))).behavior).toBe("ask");
  });
});

describe("acceptEdits", () => {
  test("edits inside the workspace are allowed, except protected paths and outside paths", async () => {
    const harness = createHarness({ parser, mode: "acceptEdits" });
    for (const tool of [tools.Edit, tools.Write, tools.NotebookEdit]) {
      expect(await harness.engine.check(harness.args(tool, { file_path: "/ws/src/a.ts", notebook_path: "/ws/src/a.ts" }))).toMatchObject({
        behavior: "allow",
        reason: { type: "mode", mode: "acceptEdits" },
      });
    }
    for (const path of ["/ws/.git/config", "/ws/.claude/settings.json", "/ws/.cairn/x", "/ws/sub/.git/hooks/pre-commit"]) {
      expect(await harness.engine.check(harness.args(tools.Write, { file_path: path }))).toMatchObject({ behavior: "ask", reason: { type: "workspace" } });
    }
    expect((await harness.engine.check(harness.args(tools.Write, { file_path: "/tmp/a" }))).behavior).toBe("ask");
    expect((await harness.engine.check(harness.args(tools.Bash, { command: "npm install" }))).behavior).toBe("ask");
  });
});

describe("plan", () => {
  test("read-only tools run, everything else is refused, ExitPlanMode asks", async () => {
    const harness = createHarness({
      parser,
      mode: "plan",
      layers: [{ source: "userSettings", settings: { permissions: { allow: ["Bash(npm test:*)", "Edit"] } } }],
    });
    expect((await harness.engine.check(harness.args(tools.Read, { file_path: "/ws/a" }))).behavior).toBe("allow");
    expect((await harness.engine.check(harness.args(tools.Bash, { command: "git log -5" }))).behavior).toBe("allow");
    expect(await harness.engine.check(harness.args(tools.Edit, { file_path: "/ws/a" }))).toMatchObject({
      behavior: "deny",
      reason: { type: "mode", mode: "plan" },
    });
    expect((await harness.engine.check(harness.args(tools.Bash, { command: "npm test" }))).behavior).toBe("deny");
    expect(await harness.engine.check(harness.args(tools.ExitPlanMode, { plan: "do it" }))).toMatchObject({
      behavior: "ask",
      reason: { type: "mode", mode: "plan" },
    });
  });
});

describe("bypassPermissions", () => {
  test("everything is allowed except deny rules and paths outside the workspace", async () => {
    const harness = createHarness({
      parser,
      mode: "bypassPermissions",
      layers: [{ source: "userSettings", settings: { permissions: { deny: ["Bash(rm:*)"] } } }],
    });
    expect(await harness.engine.check(harness.args(tools.Bash, { command: "curl x | sh" }))).toMatchObject({
      behavior: "allow",
      reason: { type: "mode", mode: "bypassPermissions" },
    });
    expect((await harness.engine.check(harness.args(tools.Write, { file_path: "/ws/.git/config" }))).behavior).toBe("allow");
    expect((await harness.engine.check(harness.args(tools.Bash, { command: "rm -rf build" }))).behavior).toBe("deny");
    expect(await harness.engine.check(harness.args(tools.Write, { file_path: "/etc/hosts" }))).toMatchObject({
      behavior: "deny",
      reason: { type: "workspace" },
    });
  });

  test("the mode is refused to root unless sandboxed, and when settings disable it", () => {
    expect(checkBypassPermissionsAllowed({ uid: 0, sandboxed: false })).toMatchObject({ ok: false });
    expect(checkBypassPermissionsAllowed({ uid: 0, sandboxed: true })).toEqual({ ok: true });
    expect(checkBypassPermissionsAllowed({ uid: 1000, sandboxed: false })).toEqual({ ok: true });
    expect(checkBypassPermissionsAllowed({ uid: 1000, sandboxed: true, disabledBySettings: true })).toMatchObject({ ok: false });
    expect(() => assertBypassPermissionsAllowed({ uid: 0, sandboxed: false })).toThrow(PermissionModeError);
  });
});
