import type { z } from "zod";
import { settingsFileSchema, type SettingsFile, type SettingsProblem } from "./settings-schema.ts";

type Origin = Pick<SettingsProblem, "source" | "file">;
type PathKey = string | number;

/** `["permissions", "allow", 2]` → `permissions.allow[2]`. */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === "object" && value !== null;
}

/** Removes the value at `path`; array elements are spliced out. Returns false if nothing was there. */
function removeAt(root: unknown, path: readonly PathKey[]): boolean {
  if (path.length === 0) return false;
  let parent: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (!isContainer(parent)) return false;
    parent = (parent as Record<PathKey, unknown>)[key];
  }
  const last = path[path.length - 1]!;
  if (Array.isArray(parent) && typeof last === "number" && last < parent.length) {
    parent.splice(last, 1);
    return true;
  }
  if (isContainer(parent) && !Array.isArray(parent) && Object.hasOwn(parent, last)) {
    delete parent[last];
    return true;
  }
  return false;
}

/** The smallest piece to drop for an issue: the nearest enclosing array element, else the key. */
function pruneTarget(path: readonly PathKey[]): PathKey[] {
  for (let index = path.length - 1; index >= 0; index -= 1) {
    if (typeof path[index] === "number") return path.slice(0, index + 1);
  }
  return [...path];
}

function issuePaths(issue: z.core.$ZodIssue): PathKey[][] {
  const base = issue.path.filter((key): key is PathKey => typeof key !== "symbol");
  if (issue.code === "unrecognized_keys") return issue.keys.map((key) => [...base, key]);
  return [base];
}

/** For each rule list, the index in the file of each kept entry (entries that are not strings are dropped first). */
export type RuleOrigins = Partial<Record<"allow" | "ask" | "deny", number[]>>;

export type ValidatedSettings = { settings: SettingsFile; problems: SettingsProblem[]; ruleOrigins: RuleOrigins };

/** Drops non-string rules up front, so later rule problems can still cite the index in the file. */
function extractRuleLists(working: Record<string, unknown>, origin: Origin, problems: SettingsProblem[]): RuleOrigins {
  const origins: RuleOrigins = {};
  const permissions = working.permissions;
  if (typeof permissions !== "object" || permissions === null || Array.isArray(permissions)) return origins;
  const record = permissions as Record<string, unknown>;
  for (const behavior of ["allow", "ask", "deny"] as const) {
    const list = record[behavior];
    if (!Array.isArray(list)) continue;
    const kept: string[] = [];
    const indexes: number[] = [];
    list.forEach((entry: unknown, index) => {
      if (typeof entry === "string") {
        kept.push(entry);
        indexes.push(index);
      } else problems.push({ ...origin, path: `permissions.${behavior}[${index}]`, message: "a rule must be a string" });
    });
    record[behavior] = kept;
    origins[behavior] = indexes;
  }
  return origins;
}

/**
 * Validates a parsed settings file tolerantly: each invalid value is reported with its JSON path
 * and dropped (an array element, or the key holding it), and the rest loads. A value that is not
 * an object at all is dropped whole.
 */
export function validateSettingsValue(value: unknown, origin: Origin): ValidatedSettings {
  const problems: SettingsProblem[] = [];
  if (!isContainer(value) || Array.isArray(value)) {
    problems.push({ ...origin, path: "", message: "settings must be a JSON object" });
    return { settings: {}, problems, ruleOrigins: {} };
  }
  const working = structuredClone(value) as Record<string, unknown>;
  const ruleOrigins = extractRuleLists(working, origin, problems);
  for (let round = 0; round < 50; round += 1) {
    const result = settingsFileSchema.safeParse(working);
    if (result.success) return { settings: result.data, problems, ruleOrigins };
    // Remove from the deepest and highest index first so earlier removals do not shift later paths.
    const targets = result.error.issues.flatMap((issue) => issuePaths(issue).map((path) => ({ path, target: pruneTarget(path), message: issue.message })));
    targets.sort((left, right) => compareForRemoval(left.target, right.target));
    let removed = false;
    const done = new Set<string>();
    for (const { path, target, message } of targets) {
      const key = JSON.stringify(target);
      if (done.has(key)) continue;
      done.add(key);
      problems.push({ ...origin, path: formatJsonPath(path), message });
      const dropped = removeAt(working, target) || removeAt(working, target.slice(0, -1));
      removed ||= dropped;
    }
    if (!removed) break;
  }
  problems.push({ ...origin, path: "", message: "settings could not be repaired; the file was ignored" });
  return { settings: {}, problems, ruleOrigins: {} };
}

function compareForRemoval(left: readonly PathKey[], right: readonly PathKey[]): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index += 1) {
    const a = left[index]!;
    const b = right[index]!;
    if (a === b) continue;
    if (typeof a === "number" && typeof b === "number") return b - a;
    return String(a) < String(b) ? -1 : 1;
  }
  return right.length - left.length;
}

/** Parses JSON text, then validates it; a syntax error drops the whole file with one problem. */
export function parseSettingsText(text: string, origin: Origin): ValidatedSettings {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      settings: {},
      problems: [{ ...origin, path: "", message: `invalid JSON: ${error instanceof Error ? error.message : String(error)}` }],
      ruleOrigins: {},
    };
  }
  return validateSettingsValue(value, origin);
}
