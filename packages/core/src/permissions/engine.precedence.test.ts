import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createNodeShellParser } from "../node/shell-parser.ts";
import type { ShellParser } from "./shell/shell-parser.ts";
import { createHarness, fakeTool, tools } from "./test-fixtures.ts";

let parser: ShellParser;
beforeAll(async () => {
  parser = await createNodeShellParser();
});
afterAll(() => parser.dispose());

describe("deny > ask > allow across sources", () => {
  test("a user deny rule beats a policy allow rule", async () => {
    const harness = createHarness({
      parser,
      layers: [
        { source: "policySettings", settings: { permissions: { allow: ["Bash(npm:*)"] } } },
        { source: "userSettings", settings: { permissions: { deny: ["Bash(npm publish:*)"] } } },
      ],
    });
    const result = await harness.engine.check(harness.args(tools.Bash, { command: "npm publish --tag next" }));
    expect(result).toMatchObject({ behavior: "deny", reason: { type: "rule", rule: "Bash(npm publish:*)", source: "userSettings", behavior: "deny" } });
    expect((await harness.engine.check(harness.args(tools.Bash, { command: "npm install" }))).behavior).toBe("allow");
  });

  test("ask beats allow", async () => {
    const harness = createHarness({
      parser,
      layers: [{ source: "projectSettings", settings: { permissions: { allow: ["Bash(git:*)"], ask: ["Bash(git push:*)"] } } }],
    });
    const result = await harness.engine.check(harness.args(tools.Bash, { command: "git push origin main" }));
    expect(result).toMatchObject({ behavior: "ask", reason: { type: "rule", rule: "Bash(git push:*)", behavior: "ask" } });
  });

  test("within one behaviour the policy rule is the one cited", async () => {
    const harness = createHarness({
      layers: [
        { source: "userSettings", settings: { permissions: { deny: ["Read(./secrets/**)"] } } },
        { source: "localSettings", settings: { permissions: { deny: ["Read"] } } },
        { source: "policySettings", settings: { permissions: { deny: ["Read(./secrets/**)"] } } },
      ],
    });
    const result = await harness.engine.check(harness.args(tools.Read, { file_path: "/ws/secrets/key" }));
    expect(result.reason).toEqual({ type: "rule", rule: "Read(./secrets/**)", source: "policySettings", behavior: "deny" });
  });

  test("--disallowedTools and --allowedTools are cliArg rules; --settings rules count as cliArg", async () => {
    const harness = createHarness({
      cli: { allowedTools: ["Edit,Bash(make:*)"], disallowedTools: ["WebFetch"] },
      layers: [{ source: "flagSettings", settings: { permissions: { allow: ["TodoWrite"] } } }],
    });
    expect((await harness.engine.check(harness.args(tools.WebFetch, { url: "https://x.org" }))).reason).toMatchObject({ source: "cliArg", rule: "WebFetch" });
    expect((await harness.engine.check(harness.args(tools.Edit, { file_path: "/ws/a.ts" }))).reason).toMatchObject({ source: "cliArg", rule: "Edit" });
    expect((await harness.engine.check(harness.args(tools.Write, { file_path: "/ws/a.ts" }))).reason).toMatchObject({ source: "cliArg", rule: "Edit" });
    expect((await harness.engine.check(harness.args(tools.TodoWrite, { todos: [] }))).reason).toMatchObject({ source: "cliArg", rule: "TodoWrite" });
  });

  test("a deny rule still denies a command hidden in a substitution, a wrapper, a runner or sh -c", async () => {
    const harness = createHarness({ parser, layers: [{ source: "userSettings", settings: { permissions: { deny: ["Bash(rm:*)"] } } }] });
    const evasions = [
      "ls $(rm -rf x)",
      "echo ok; rm x",
      "timeout 5 rm x",
      "ls ((; rm x",
      "/bin/rm x",
      "sudo -u root rm x",
      'sh -c "rm x"',
      "bash -lc 'ls && rm -rf y'",
      "eval rm x",
      "find . -exec rm {} \\;",
      "ls | xargs -n1 rm",
      "command rm x",
    ];
    for (const command of evasions) {
      expect((await harness.engine.check(harness.args(tools.Bash, { command }))).behavior, command).toBe("deny");
    }
  });

  test("without a parser, deny rules still apply on the text and nothing is rule-allowed", async () => {
    const harness = createHarness({ layers: [{ source: "userSettings", settings: { permissions: { deny: ["Bash(rm:*)"], allow: ["Bash(ls:*)"] } } }] });
    expect((await harness.engine.check(harness.args(tools.Bash, { command: "ls; rm x" }))).behavior).toBe("deny");
    expect((await harness.engine.check(harness.args(tools.Bash, { command: "ls" }))).behavior).toBe("ask");
  });

  test("a whole-tool Bash allow rule allows any command, even one rules cannot analyse", async () => {
    const harness = createHarness({ parser, layers: [{ source: "userSettings", settings: { permissions: { allow: ["Bash"] } } }] });
    expect((await harness.engine.check(harness.args(tools.Bash, { command: "echo $(date) | sh" }))).behavior).toBe("allow");
  });

  test("session rules allow until the end of the session", async () => {
    const harness = createHarness({ parser });
    expect((await harness.engine.check(harness.args(tools.Bash, { command: "npm test" }))).behavior).toBe("ask");
    harness.store.setState((state) => ({ ...state, sessionAllowRules: ["Bash(npm test:*)"] }));
    const result = await harness.engine.check(harness.args(tools.Bash, { command: "npm test -- --watch" }));
    expect(result).toMatchObject({ behavior: "allow", reason: { type: "rule", source: "session" } });
  });

  test("MCP server rules and exact tool rules", async () => {
    const harness = createHarness({
      layers: [{ source: "userSettings", settings: { permissions: { allow: ["mcp__memory__read"], deny: ["mcp__memory__write"] } } }],
    });
    expect((await harness.engine.check(harness.args(tools.memoryRead, {}))).behavior).toBe("allow");
    expect((await harness.engine.check(harness.args(tools.memoryWrite, {}))).behavior).toBe("deny");
  });
});

describe("hooks and the tool's own check", () => {
  test("a hook allow cannot override a deny rule", async () => {
    const harness = createHarness({ layers: [{ source: "userSettings", settings: { permissions: { deny: ["Write"] } } }] });
    const result = await harness.engine.check(
      harness.args(tools.Write, { file_path: "/ws/a" }, { hookDecision: { behavior: "allow", hookName: "approve.sh" } }),
    );
    expect(result).toMatchObject({ behavior: "deny", reason: { type: "rule", rule: "Write" } });
  });

  test("a hook deny beats an allow rule; a hook allow skips the question; a hook ask asks", async () => {
    const harness = createHarness({ layers: [{ source: "userSettings", settings: { permissions: { allow: ["Write"] } } }] });
    const denied = await harness.engine.check(
      harness.args(tools.Write, { file_path: "/ws/a" }, { hookDecision: { behavior: "deny", hookName: "guard.sh", reason: "no" } }),
    );
    expect(denied).toMatchObject({ behavior: "deny", reason: { type: "hook", hookName: "guard.sh", reason: "no" } });
    const allowed = await harness.engine.check(harness.args(tools.Edit, { file_path: "/ws/a" }, { hookDecision: { behavior: "allow", hookName: "ok.sh" } }));
    expect(allowed).toMatchObject({ behavior: "allow", reason: { type: "hook", hookName: "ok.sh" } });
    const asked = await harness.engine.check(harness.args(tools.Write, { file_path: "/ws/a" }, { hookDecision: { behavior: "ask", hookName: "hmm.sh" } }));
    expect(asked).toMatchObject({ behavior: "ask", reason: { type: "hook" } });
  });

  test("the tool's checkPermissions decides before ask and allow rules; passthrough defers", async () => {
    const denying = fakeTool({
      name: "Custom",
      checkPermissions: async () => ({ behavior: "deny", reason: { type: "tool", reason: "nope" }, message: "nope" }),
    });
    const passing = fakeTool({ name: "Custom", checkPermissions: async () => ({ behavior: "passthrough" }) });
    const harness = createHarness({ layers: [{ source: "userSettings", settings: { permissions: { allow: ["Custom"] } } }] });
    expect(await harness.engine.check(harness.args(denying, {}))).toMatchObject({ behavior: "deny", reason: { type: "tool" } });
    expect(await harness.engine.check(harness.args(passing, {}))).toMatchObject({ behavior: "allow", reason: { type: "rule", rule: "Custom" } });
    const throwing = fakeTool({
      name: "Custom",
      checkPermissions: async () => {
        throw new Error("stat failed");
      },
    });
    expect(await harness.engine.check(harness.args(throwing, {}))).toMatchObject({
      behavior: "ask",
      reason: { type: "tool", reason: expect.stringContaining("stat failed") },
    });
  });
});
