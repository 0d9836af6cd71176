import { readFile } from "node:fs/promises";
import { parseRuleValue } from "@cairn/core";
import type { PermissionBehavior } from "@cairn/core/schema";
import { addPermissionRule, localSettingsPath, SettingsWriteError, writeFileAtomic } from "@cairn/core/node";

export class LocalSettingsError extends Error {
  override readonly name = "LocalSettingsError";
  readonly code = "invalid_rule";
}

/**
 * The settings layer the IDE writes: permission rules added from the settings panel and "always allow"
 * answers. Embedded it is Claude Code's `.claude/settings.local.json` in the workspace; in distributed
 * mode a row in PostgreSQL, so a rule added on one node holds on every node.
 */
export interface LocalSettingsStore {
  /** Names the layer in settings problems and in the settings panel. */
  readonly location: string;
  /** The layer's JSON text; undefined when there is none yet. */
  read(): Promise<string | undefined>;
  /** Adds a rule under `permissions.<behavior>`; false when it was there already. */
  addRule(behavior: PermissionBehavior, rule: string): Promise<boolean>;
  /** Removes a rule; false when it was not there. */
  removeRule(behavior: PermissionBehavior, rule: string): Promise<boolean>;
  /** Called when another node changed the layer (the file store tells nothing: the file is re-read on reload). */
  onChange(listener: () => void): () => void;
}

export type LocalSettingsStoreFactory = (workspaceRoot: string) => LocalSettingsStore;

/** The settings object with `rule` added under `permissions.<behavior>`, or undefined when it is there already. */
export function settingsWithRule(settings: Record<string, unknown>, behavior: PermissionBehavior, rule: string): Record<string, unknown> | undefined {
  checkRule(rule);
  const permissions = permissionsOf(settings);
  const existing = Array.isArray(permissions[behavior]) ? (permissions[behavior] as unknown[]) : [];
  if (existing.includes(rule)) return undefined;
  return { ...settings, permissions: { ...permissions, [behavior]: [...existing, rule] } };
}

/** The settings object without `rule` under `permissions.<behavior>`, or undefined when it was not there. */
export function settingsWithoutRule(settings: Record<string, unknown>, behavior: PermissionBehavior, rule: string): Record<string, unknown> | undefined {
  checkRule(rule);
  const permissions = settings.permissions;
  if (typeof permissions !== "object" || permissions === null || Array.isArray(permissions)) return undefined;
  const list = (permissions as Record<string, unknown>)[behavior];
  if (!Array.isArray(list) || !list.includes(rule)) return undefined;
  return { ...settings, permissions: { ...permissions, [behavior]: list.filter((entry) => entry !== rule) } };
}

/** A settings text as an object; a text that is not a JSON object is refused rather than overwritten. */
export function settingsObject(text: string | undefined, location: string): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LocalSettingsError(`${location} is not valid JSON; fix it before changing rules`, { cause: error });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new LocalSettingsError(`${location} does not hold a JSON object`);
  return value as Record<string, unknown>;
}

function checkRule(rule: string): void {
  const parsed = parseRuleValue(rule);
  if (!parsed.ok) throw new LocalSettingsError(`"${rule}" is not a permission rule: ${parsed.message}`);
}

function permissionsOf(settings: Record<string, unknown>): Record<string, unknown> {
  const permissions = settings.permissions;
  return typeof permissions === "object" && permissions !== null && !Array.isArray(permissions) ? (permissions as Record<string, unknown>) : {};
}

/** `.claude/settings.local.json` in the workspace, one write at a time. */
export function createFileLocalSettingsStore(workspaceRoot: string): LocalSettingsStore {
  const file = localSettingsPath(workspaceRoot);
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };
  const read = async (): Promise<string | undefined> => {
    try {
      return await readFile(file, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw error;
    }
  };
  return {
    location: file,
    read,
    addRule: (behavior, rule) =>
      serialized(async () => {
        try {
          return await addPermissionRule(file, behavior, rule);
        } catch (error) {
          if (error instanceof SettingsWriteError) throw new LocalSettingsError(error.message, { cause: error });
          throw error;
        }
      }),
    removeRule: (behavior, rule) =>
      serialized(async () => {
        checkRule(rule);
        const text = await read();
        if (text === undefined) return false;
        const next = settingsWithoutRule(settingsObject(text, file), behavior, rule);
        if (next === undefined) return false;
        await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
        return true;
      }),
    onChange: () => () => undefined,
  };
}
