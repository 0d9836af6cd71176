import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { loadSettings } from "./settings-loader.ts";
import { addPermissionRule, createPermissionRulePersister, localSettingsPath, SettingsWriteError } from "./settings-writer.ts";

let base: string;
let workspace: string;
let cairnHome: string;
let managed: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "cairn-settings-"));
  workspace = join(base, "ws");
  cairnHome = join(base, "home", ".cairn");
  managed = join(base, "etc", "managed-settings.json");
  await mkdir(join(workspace, ".claude"), { recursive: true });
  await mkdir(cairnHome, { recursive: true });
  await mkdir(join(base, "etc"), { recursive: true });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const write = (file: string, value: unknown) => writeFile(file, typeof value === "string" ? value : JSON.stringify(value));

describe("loadSettings", () => {
  test("loads and merges policy, user, project, local, --settings and CLI flags", async () => {
    await write(managed, { permissions: { deny: ["Bash(curl:*)"] } });
    await write(join(cairnHome, "settings.json"), { permissions: { allow: ["Read"] }, model: "user-model" });
    await write(join(workspace, ".claude", "settings.json"), {
      permissions: { ask: ["Bash(git push:*)"] },
      hooks: { Stop: [{ hooks: [{ type: "command", command: "x" }] }] },
    });
    await write(join(workspace, ".claude", "settings.local.json"), { permissions: { allow: ["Edit(/src/**)"] } });
    const { merged, problems, layers } = await loadSettings({
      workspaceRoot: workspace,
      cairnHome,
      managedSettingsPath: managed,
      flagSettings: '{"permissions":{"allow":["Bash(make:*)"]},"model":"flag-model"}',
      cli: { allowedTools: ["Glob"], permissionMode: "plan" },
      homeDir: join(base, "home"),
    });
    expect(problems).toEqual([]);
    expect(layers.map((layer) => layer.source).sort()).toEqual(["flagSettings", "localSettings", "policySettings", "projectSettings", "userSettings"]);
    expect(merged.permissions.rules.map((rule) => `${rule.source}:${rule.behavior}:${rule.rule}`)).toEqual([
      "policySettings:deny:Bash(curl:*)",
      "cliArg:allow:Glob",
      "cliArg:allow:Bash(make:*)",
      "localSettings:allow:Edit(/src/**)",
      "projectSettings:ask:Bash(git push:*)",
      "userSettings:allow:Read",
    ]);
    expect(merged.model).toBe("flag-model");
    expect(merged.permissions.defaultMode).toBe("plan");
    expect(merged.hooks).toHaveLength(1);
  });

  test("a --settings file path is read relative to cwd; a missing one is reported", async () => {
    await write(join(base, "extra.json"), { permissions: { deny: ["WebFetch"] } });
    const found = await loadSettings({ workspaceRoot: workspace, cairnHome, managedSettingsPath: managed, flagSettings: "extra.json", cwd: base });
    expect(found.merged.permissions.rules.map((rule) => `${rule.source}:${rule.rule}`)).toEqual(["cliArg:WebFetch"]);
    const missing = await loadSettings({ workspaceRoot: workspace, cairnHome, managedSettingsPath: managed, flagSettings: "nope.json", cwd: base });
    expect(missing.problems).toEqual([expect.objectContaining({ source: "flagSettings", file: "nope.json" })]);
  });

  test("missing files are fine; a broken file is reported and the others still load", async () => {
    await write(join(cairnHome, "settings.json"), "{ this is not json");
    await write(join(workspace, ".claude", "settings.json"), { permissions: { allow: ["Read", 7, "Bash("] } });
    await write(join(workspace, ".claude", "settings.local.json"), { permissions: { deny: ["Write"] } });
    const { merged, problems } = await loadSettings({ workspaceRoot: workspace, cairnHome, managedSettingsPath: managed });
    expect(problems.map((problem) => [problem.file.replace(base, ""), problem.path])).toEqual([
      ["/home/.cairn/settings.json", ""],
      ["/ws/.claude/settings.json", "permissions.allow[1]"],
      ["/ws/.claude/settings.json", "permissions.allow[2]"],
    ]);
    expect(problems[0]!.message).toContain("invalid JSON");
    expect(merged.permissions.rules.map((rule) => rule.rule)).toEqual(["Write", "Read"]);
  });
});

describe("addPermissionRule", () => {
  test("creates .claude/settings.local.json and keeps other keys and rules", async () => {
    const file = localSettingsPath(join(base, "fresh"));
    expect(await addPermissionRule(file, "allow", "Bash(npm run test:*)")).toBe(true);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ permissions: { allow: ["Bash(npm run test:*)"] } });

    await write(file, { env: { A: "1" }, permissions: { allow: ["Read"], deny: ["Write"], defaultMode: "plan" } });
    expect(await addPermissionRule(file, "allow", "Edit(/src/**)")).toBe(true);
    expect(await addPermissionRule(file, "allow", "Edit(/src/**)")).toBe(false);
    expect(await addPermissionRule(file, "deny", "WebFetch")).toBe(true);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
      env: { A: "1" },
      permissions: { allow: ["Read", "Edit(/src/**)"], deny: ["Write", "WebFetch"], defaultMode: "plan" },
    });
  });

  test("refuses invalid rules and never overwrites a file that is not valid JSON", async () => {
    const file = localSettingsPath(workspace);
    await expect(addPermissionRule(file, "allow", "Bash(")).rejects.toMatchObject({ code: "invalid_rule" });
    await write(file, "{ half written");
    const error = await addPermissionRule(file, "allow", "Read").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SettingsWriteError);
    expect(error).toMatchObject({ code: "settings_unreadable" });
    expect(await readFile(file, "utf8")).toBe("{ half written");
  });

  test("the persister serialises concurrent writes so none is lost", async () => {
    const persist = createPermissionRulePersister(workspace);
    const rules = Array.from({ length: 12 }, (_, index) => `Bash(task${index}:*)`);
    await Promise.all(rules.map((rule) => persist(rule)));
    const saved = JSON.parse(await readFile(localSettingsPath(workspace), "utf8")) as { permissions: { allow: string[] } };
    expect(saved.permissions.allow.sort()).toEqual([...rules].sort());
  });
});
