import { readFile } from "node:fs/promises";
import { parseRuleValue } from "@cairn/core";
import type { PermissionBehavior } from "@cairn/core/schema";
import { addPermissionRule, localSettingsPath, settingsFilePaths, SettingsWriteError, writeFileAtomic } from "@cairn/core/node";
import type { Runtime } from "../runtime/create-runtime.ts";
import type { SettingsPort } from "../router/context.ts";
import { ApiError } from "../router/errors.ts";
import type { SettingsRule, SettingsView } from "../router/types.ts";

/**
 * Permission rules as the web IDE shows and edits them. Local rules go to
 * `.claude/settings.local.json` (one write at a time) and the runtime reloads its settings, so the
 * next permission check of every session sees them.
 */
export class SettingsService implements SettingsPort {
  private queue: Promise<unknown> = Promise.resolve();

  private readonly runtime: Runtime;
  private readonly sessionRules: (sessionId: string) => Promise<readonly string[]>;
  private readonly managedSettingsPath: string | undefined;

  constructor(runtime: Runtime, sessionRules: (sessionId: string) => Promise<readonly string[]>, managedSettingsPath?: string) {
    this.runtime = runtime;
    this.sessionRules = sessionRules;
    this.managedSettingsPath = managedSettingsPath;
  }

  async get(sessionId: string | undefined): Promise<SettingsView> {
    const { merged, problems } = this.runtime.settings;
    const rules: SettingsRule[] = merged.permissions.rules.map((rule) => ({ rule: rule.rule, behavior: rule.behavior, source: rule.source }));
    if (sessionId !== undefined) {
      for (const rule of await this.sessionRules(sessionId)) rules.push({ rule, behavior: "allow", source: "session" });
    }
    return {
      rules,
      defaultMode: merged.permissions.defaultMode,
      problems: problems.map((problem) => ({ file: problem.file, ...(problem.path ? { path: problem.path } : {}), message: problem.message })),
      files: settingsFilePaths({
        workspaceRoot: this.runtime.workspaceRoot,
        cairnHome: this.runtime.cairnHome,
        ...(this.managedSettingsPath ? { managedSettingsPath: this.managedSettingsPath } : {}),
      }),
    };
  }

  addLocalRule(behavior: PermissionBehavior, rule: string): Promise<void> {
    return this.serialized(async () => {
      try {
        await addPermissionRule(localSettingsPath(this.runtime.workspaceRoot), behavior, rule);
      } catch (error) {
        if (error instanceof SettingsWriteError) throw new ApiError("invalid_rule", error.message, { cause: error });
        throw error;
      }
      await this.runtime.reloadSettings();
    });
  }

  removeLocalRule(behavior: PermissionBehavior, rule: string): Promise<boolean> {
    return this.serialized(async () => {
      const parsed = parseRuleValue(rule);
      if (!parsed.ok) throw new ApiError("invalid_rule", `"${rule}" is not a permission rule: ${parsed.message}`);
      const file = localSettingsPath(this.runtime.workspaceRoot);
      const settings = await readSettingsObject(file);
      if (!settings) return false;
      const permissions = settings.permissions;
      if (typeof permissions !== "object" || permissions === null || Array.isArray(permissions)) return false;
      const list = (permissions as Record<string, unknown>)[behavior];
      if (!Array.isArray(list) || !list.includes(rule)) return false;
      const next = { ...settings, permissions: { ...permissions, [behavior]: list.filter((entry) => entry !== rule) } };
      await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
      await this.runtime.reloadSettings();
      return true;
    });
  }

  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

async function readSettingsObject(file: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError("invalid_rule", `${file} is not valid JSON; fix it before removing rules`, { cause: error });
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
