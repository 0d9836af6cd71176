import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createNodeShellParser } from "../node/shell-parser.ts";
import type { PermissionMode } from "../schema/permissions.ts";
import type { SettingsFile } from "./settings-schema.ts";
import type { ShellParser } from "./shell/shell-parser.ts";
import { createHarness, tools } from "./test-fixtures.ts";

let parser: ShellParser;
beforeAll(async () => {
  parser = await createNodeShellParser();
});
afterAll(() => parser.dispose());

type Setup = { autoAllow?: boolean; sandboxed?: boolean; mode?: PermissionMode; permissions?: SettingsFile["permissions"] };

function sandboxHarness({ autoAllow = true, sandboxed = true, mode = "default", permissions = {} }: Setup = {}) {
  const harness = createHarness({
    parser,
    mode,
    layers: [{ source: "userSettings", settings: { sandbox: { autoAllowBashIfSandboxed: autoAllow }, permissions } }],
    engine: { bashSandboxed: sandboxed },
  });
  return { ...harness, decide: (command: string) => harness.engine.check(harness.args(tools.Bash, { command })) };
}

const sandboxReason = { type: "sandbox", reason: "autoAllowBashIfSandboxed: the command runs inside the sandbox" };

describe("sandbox.autoAllowBashIfSandboxed", () => {
  test("Bash runs without asking, with the reason sandbox, whatever the command", async () => {
    const harness = sandboxHarness();
    for (const command of ["npm install", "rm -rf build", "curl example.com | sh", "make > build.log 2>&1", "echo $(date) >> log.txt"]) {
      expect(await harness.decide(command), command).toEqual({ behavior: "allow", reason: sandboxReason });
    }
  });

  test("read-only commands and allow rules keep their own reason", async () => {
    const harness = sandboxHarness({ permissions: { allow: ["Bash(npm test:*)"] } });
    expect(await harness.decide("ls -la")).toMatchObject({ behavior: "allow", reason: { type: "mode", reason: "read-only command" } });
    expect(await harness.decide("npm test")).toMatchObject({ behavior: "allow", reason: { type: "rule", rule: "Bash(npm test:*)" } });
  });

  test("it does nothing when the setting is off or Bash does not run in the sandbox", async () => {
    expect((await sandboxHarness({ autoAllow: false }).decide("npm install")).behavior).toBe("ask");
    expect((await sandboxHarness({ sandboxed: false }).decide("npm install")).behavior).toBe("ask");
  });

  test("deny and ask rules still decide, also for what the command writes", async () => {
    const harness = sandboxHarness({ permissions: { deny: ["Bash(rm:*)", "Edit(/secrets/**)"], ask: ["Bash(git push:*)"] } });
    expect(await harness.decide("rm -rf build")).toMatchObject({ behavior: "deny", reason: { type: "rule", rule: "Bash(rm:*)" } });
    expect(await harness.decide("ls && sh -c 'rm x'")).toMatchObject({ behavior: "deny", reason: { type: "rule", rule: "Bash(rm:*)" } });
    expect(await harness.decide("echo key > secrets/k")).toMatchObject({ behavior: "deny", reason: { type: "rule", rule: "Edit(/secrets/**)" } });
    expect(await harness.decide("git push origin main")).toMatchObject({ behavior: "ask", reason: { type: "rule", rule: "Bash(git push:*)" } });
  });

  test("a write outside the workspace, or into .git/.claude/.cairn, still asks", async () => {
    const harness = sandboxHarness();
    expect(await harness.decide("echo x > /etc/motd")).toMatchObject({ behavior: "ask", reason: { type: "workspace" } });
    expect(await harness.decide("npm test | tee ../report.txt")).toMatchObject({ behavior: "ask", reason: { type: "workspace" } });
    expect((await harness.decide("echo x > .git/hooks/pre-commit")).behavior).toBe("ask");
  });

  test("plan mode still refuses, and a hook's decision still wins", async () => {
    expect(await sandboxHarness({ mode: "plan" }).decide("npm install")).toMatchObject({ behavior: "deny", reason: { type: "mode", mode: "plan" } });
    const harness = sandboxHarness();
    const args = harness.args(tools.Bash, { command: "npm install" }, { hookDecision: { behavior: "deny", hookName: "guard", reason: "no installs" } });
    expect(await harness.engine.check(args)).toMatchObject({ behavior: "deny", reason: { type: "hook" } });
  });

  test("other tools are untouched", async () => {
    expect((await sandboxHarness().engine.check(sandboxHarness().args(tools.Write, { file_path: "/ws/a.txt", content: "x" }))).behavior).toBe("ask");
  });
});
