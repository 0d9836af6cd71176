import type { PermissionBehavior } from "@cairn/core/schema";
import { settingsFilePaths } from "@cairn/core/node";
import { LocalSettingsError } from "../runtime/local-settings.ts";
import type { Runtime } from "../runtime/runtime-types.ts";
import type { SettingsPort } from "../router/context.ts";
import { ApiError } from "../router/errors.ts";
import type { SettingsRule, SettingsView } from "../router/types.ts";

/**
 * Permission rules as the web IDE shows and edits them. Local rules go to the runtime's local settings
 * (`.claude/settings.local.json`, or PostgreSQL in distributed mode), one write at a time, and the runtime
 * reloads its settings, so the next permission check of every session sees them.
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
      files: {
        ...settingsFilePaths({
          workspaceRoot: this.runtime.workspaceRoot,
          cairnHome: this.runtime.cairnHome,
          ...(this.managedSettingsPath ? { managedSettingsPath: this.managedSettingsPath } : {}),
        }),
        localSettings: this.runtime.localSettings.location,
      },
    };
  }

  addLocalRule(behavior: PermissionBehavior, rule: string): Promise<void> {
    return this.serialized(async () => {
      await this.localStore(() => this.runtime.localSettings.addRule(behavior, rule));
      await this.runtime.reloadSettings();
    });
  }

  removeLocalRule(behavior: PermissionBehavior, rule: string): Promise<boolean> {
    return this.serialized(async () => {
      const removed = await this.localStore(() => this.runtime.localSettings.removeRule(behavior, rule));
      if (removed) await this.runtime.reloadSettings();
      return removed;
    });
  }

  private async localStore<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof LocalSettingsError) throw new ApiError("invalid_rule", error.message, { cause: error });
      throw error;
    }
  }

  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
