import { describe, expect, test } from "vitest";
import { mergeSettings, type SettingsLayer } from "./settings-merge.ts";
import { parseSettingsText, validateSettingsValue } from "./settings-validate.ts";

const roots = { projectRoot: "/ws", homeDir: "/home/dev" };
const layer = (source: SettingsLayer["source"], settings: SettingsLayer["settings"]): SettingsLayer => ({ source, file: `/${source}.json`, settings });

describe("validateSettingsValue", () => {
  test("drops only what is broken and reports file, JSON path and reason", () => {
    const { settings, problems } = validateSettingsValue(
      {
        permissions: { allow: ["Read", 3, "Bash(ls:*)", { x: 1 }], defaultMode: "yolo", deny: ["Write"] },
        hooks: {
          PreToolUse: [
            {
              matcher: "Write",
              hooks: [
                { type: "command", command: "ok.sh" },
                { type: "prompt", prompt: "?" },
              ],
            },
            { matcher: "Edit", hooks: "not-a-list" },
          ],
          NotAnEvent: [],
        },
        env: { GOOD: "1", BAD: 2 },
        model: 42,
        sandbox: { enabled: true, allowedDomains: ["a.com"] },
        mcpServers: { ok: { command: "srv" }, broken: { type: "http" } },
        statusLine: { keep: true },
      },
      { source: "projectSettings", file: "/ws/.claude/settings.json" },
    );
    expect(settings).toEqual({
      permissions: { allow: ["Read", "Bash(ls:*)"], deny: ["Write"] },
      hooks: { PreToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "ok.sh" }] }] },
      env: { GOOD: "1" },
      sandbox: { enabled: true, allowedDomains: ["a.com"] },
      mcpServers: { ok: { command: "srv" } },
      statusLine: { keep: true },
    });
    expect(problems.map((problem) => problem.path).sort()).toEqual(
      [
        "env.BAD",
        "hooks.NotAnEvent",
        "hooks.PreToolUse[0].hooks[1].type",
        "hooks.PreToolUse[1].hooks",
        "mcpServers.broken",
        "model",
        "permissions.allow[1]",
        "permissions.allow[3]",
        "permissions.defaultMode",
      ].sort(),
    );
    expect(problems.every((problem) => problem.file === "/ws/.claude/settings.json" && problem.source === "projectSettings" && problem.message !== "")).toBe(
      true,
    );
  });

  test("invalid JSON or a non-object drops the file with one problem", () => {
    expect(parseSettingsText("{ nope", { source: "userSettings", file: "u.json" })).toMatchObject({ settings: {}, problems: [{ path: "", file: "u.json" }] });
    expect(parseSettingsText("[1]", { source: "userSettings", file: "u.json" }).problems[0]?.message).toContain("JSON object");
  });
});

describe("mergeSettings", () => {
  test("rules concatenate with their sources; scalars take the highest priority; env and servers merge by key", () => {
    const merged = mergeSettings(
      [
        layer("userSettings", {
          permissions: { allow: ["Read"], defaultMode: "plan" },
          env: { A: "user", B: "user" },
          model: "user-model",
          mcpServers: { s: { command: "user" }, u: { command: "u" } },
        }),
        layer("projectSettings", { permissions: { deny: ["Bash(rm:*)"] }, env: { B: "project" }, sandbox: { enabled: false, allowNetwork: true } }),
        layer("localSettings", { permissions: { allow: ["Edit(/src/**)"], defaultMode: "acceptEdits" }, mcpServers: { s: { command: "local" } } }),
        layer("policySettings", { sandbox: { enabled: true }, model: "policy-model" }),
      ],
      { roots },
    );
    expect(merged.permissions.rules.map((rule) => [rule.rule, rule.behavior, rule.source])).toEqual([
      ["Edit(/src/**)", "allow", "localSettings"],
      ["Bash(rm:*)", "deny", "projectSettings"],
      ["Read", "allow", "userSettings"],
    ]);
    expect(merged.permissions.defaultMode).toBe("acceptEdits");
    expect(merged.model).toBe("policy-model");
    expect(merged.env).toEqual({ A: "user", B: "project" });
    expect(merged.sandbox).toEqual({ enabled: true, allowNetwork: true });
    expect(merged.mcpServers).toEqual({
      s: { config: { command: "local" }, source: "localSettings" },
      u: { config: { command: "u" }, source: "userSettings" },
    });
    expect(merged.problems).toEqual([]);
  });

  test("the CLI mode beats defaultMode; CLI rules are cliArg", () => {
    const merged = mergeSettings([layer("userSettings", { permissions: { defaultMode: "plan" } })], {
      roots,
      cli: { permissionMode: "acceptEdits", allowedTools: ["Bash(git log:*),Read"], disallowedTools: ["WebFetch"] },
    });
    expect(merged.permissions.defaultMode).toBe("acceptEdits");
    expect(merged.permissions.rules.map((rule) => `${rule.behavior}:${rule.rule}:${rule.source}`)).toEqual([
      "deny:WebFetch:cliArg",
      "allow:Bash(git log:*):cliArg",
      "allow:Read:cliArg",
    ]);
  });

  test("invalid rules are reported with their path and left out", () => {
    const merged = mergeSettings([layer("localSettings", { permissions: { allow: ["Read", "Bash(", "mcp__x(y)"] } })], {
      roots,
      cli: { allowedTools: ["Bash("] },
    });
    expect(merged.permissions.rules.map((rule) => rule.rule)).toEqual(["Read"]);
    expect(merged.problems.map((problem) => `${problem.file} ${problem.path}`)).toEqual([
      "--allowedTools [0]",
      "/localSettings.json permissions.allow[1]",
      "/localSettings.json permissions.allow[2]",
    ]);
  });

  test("hooks keep their source; additional directories resolve against the project and home", () => {
    const merged = mergeSettings(
      [
        layer("projectSettings", {
          hooks: { PreToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "p.sh" }] }] },
          permissions: { additionalDirectories: ["../lib", "~/notes", "/abs"] },
        }),
        layer("policySettings", { hooks: { Stop: [{ hooks: [{ type: "command", command: "s.sh", timeout: 5 }] }] }, allowManagedHooksOnly: true }),
      ],
      { roots },
    );
    expect(merged.hooks).toEqual([
      { event: "Stop", hooks: [{ type: "command", command: "s.sh", timeout: 5 }], source: "policySettings" },
      { event: "PreToolUse", matcher: "Write", hooks: [{ type: "command", command: "p.sh" }], source: "projectSettings" },
    ]);
    expect(merged.allowManagedHooksOnly).toBe(true);
    expect(merged.permissions.additionalDirectories).toEqual(["/lib", "/home/dev/notes", "/abs"]);
  });

  test("bypassPermissions disabled by settings falls back to default and says which file disabled it", () => {
    const merged = mergeSettings(
      [
        layer("userSettings", { permissions: { defaultMode: "bypassPermissions" } }),
        layer("policySettings", { permissions: { disableBypassPermissionsMode: "disable" } }),
      ],
      { roots },
    );
    expect(merged.permissions.defaultMode).toBe("default");
    expect(merged.permissions.disableBypassPermissionsMode).toBe(true);
    expect(merged.problems).toEqual([expect.objectContaining({ file: "/policySettings.json", path: "permissions.disableBypassPermissionsMode" })]);
  });
});
