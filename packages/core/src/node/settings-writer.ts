import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseRuleValue } from "../permissions/rule-parser.ts";
import type { PermissionBehavior } from "../schema/permissions.ts";

export const settingsWriteErrorCodes = ["invalid_rule", "settings_unreadable", "settings_not_object"] as const;
export type SettingsWriteErrorCode = (typeof settingsWriteErrorCodes)[number];

export class SettingsWriteError extends Error {
  readonly code: SettingsWriteErrorCode;
  readonly file: string;
  constructor(code: SettingsWriteErrorCode, file: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SettingsWriteError";
    this.code = code;
    this.file = file;
  }
}

export function localSettingsPath(workspaceRoot: string): string {
  return join(workspaceRoot, ".claude", "settings.local.json");
}

async function readJsonObject(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new SettingsWriteError("settings_unreadable", file, `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Never overwrite a file the user is in the middle of editing by hand.
    throw new SettingsWriteError("settings_unreadable", file, `${file} is not valid JSON; fix it before adding rules`, { cause: error });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SettingsWriteError("settings_not_object", file, `${file} does not hold a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** Writes through a temporary file in the same directory and renames it: readers never see half a file. */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(temporary, content, { encoding: "utf8", mode: 0o600 });
    await rename(temporary, file);
  } finally {
    await rm(temporary, { force: true });
  }
}

/**
 * Adds `rule` to `permissions.<behavior>` of a settings file (creating it), keeping every other
 * key. Returns false when the rule was already there. Calls for the same file should be
 * serialised (see `createPermissionRulePersister`).
 */
export async function addPermissionRule(file: string, behavior: PermissionBehavior, rule: string): Promise<boolean> {
  const parsed = parseRuleValue(rule);
  if (!parsed.ok) throw new SettingsWriteError("invalid_rule", file, parsed.message);
  const settings = await readJsonObject(file);
  const permissions =
    typeof settings.permissions === "object" && settings.permissions !== null && !Array.isArray(settings.permissions)
      ? (settings.permissions as Record<string, unknown>)
      : {};
  const existing = Array.isArray(permissions[behavior]) ? (permissions[behavior] as unknown[]) : [];
  if (existing.includes(rule)) return false;
  const next = { ...settings, permissions: { ...permissions, [behavior]: [...existing, rule] } };
  await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
  return true;
}

/** `persistRule` for the permission engine: allow rules into `.claude/settings.local.json`, one write at a time. */
export function createPermissionRulePersister(workspaceRoot: string): (rule: string) => Promise<void> {
  const file = localSettingsPath(workspaceRoot);
  let queue: Promise<unknown> = Promise.resolve();
  return (rule) => {
    const write = queue.then(() => addPermissionRule(file, "allow", rule));
    queue = write.catch(() => undefined);
    return write.then(() => undefined);
  };
}
