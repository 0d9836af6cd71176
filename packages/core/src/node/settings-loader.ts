import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { mergeSettings, type CliPermissionInput, type MergedSettings, type SettingsLayer } from "../permissions/settings-merge.ts";
import type { SettingsProblem, SettingsSource } from "../permissions/settings-schema.ts";
import { parseSettingsText } from "../permissions/settings-validate.ts";

export const DEFAULT_MANAGED_SETTINGS_PATH = "/etc/cairn/managed-settings.json";

export type LoadSettingsOptions = {
  workspaceRoot: string;
  /** `$CAIRN_HOME` (default `~/.cairn`); user settings are `<cairnHome>/settings.json`. */
  cairnHome: string;
  /** Overridable for tests; defaults to `/etc/cairn/managed-settings.json`. */
  managedSettingsPath?: string;
  /** `--settings`: a file path or inline JSON. */
  flagSettings?: string;
  cli?: CliPermissionInput;
  /** For `~/` rules and directories; defaults to the OS home. */
  homeDir?: string;
  /** Resolves a relative `--settings` path; defaults to the workspace root. */
  cwd?: string;
  /**
   * Where the local layer (the rules the IDE writes) comes from when it is not `.claude/settings.local.json`
   * (distributed mode keeps it in PostgreSQL): `location` names it in problems, `read` gives its JSON text.
   */
  localSettings?: { location: string; read(): Promise<string | undefined> };
};

export type LoadedSettings = { merged: MergedSettings; layers: SettingsLayer[]; problems: SettingsProblem[] };

export function settingsFilePaths(
  options: Pick<LoadSettingsOptions, "workspaceRoot" | "cairnHome" | "managedSettingsPath">,
): Record<Exclude<SettingsSource, "flagSettings">, string> {
  return {
    policySettings: options.managedSettingsPath ?? DEFAULT_MANAGED_SETTINGS_PATH,
    userSettings: join(options.cairnHome, "settings.json"),
    projectSettings: join(options.workspaceRoot, ".claude", "settings.json"),
    localSettings: join(options.workspaceRoot, ".claude", "settings.local.json"),
  };
}

async function readLayer(source: SettingsSource, file: string): Promise<{ layer?: SettingsLayer; problems: SettingsProblem[] }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { problems: [] };
    return { problems: [{ source, file, path: "", message: `cannot read settings: ${(error as Error).message}` }] };
  }
  const { settings, problems, ruleOrigins } = parseSettingsText(text, { source, file });
  return { layer: { source, file, settings, ruleOrigins }, problems };
}

async function readLayerFrom(
  source: SettingsSource,
  origin: { location: string; read(): Promise<string | undefined> },
): Promise<{ layer?: SettingsLayer; problems: SettingsProblem[] }> {
  let text: string | undefined;
  try {
    text = await origin.read();
  } catch (error) {
    return { problems: [{ source, file: origin.location, path: "", message: `cannot read settings: ${(error as Error).message}` }] };
  }
  if (text === undefined) return { problems: [] };
  const { settings, problems, ruleOrigins } = parseSettingsText(text, { source, file: origin.location });
  return { layer: { source, file: origin.location, settings, ruleOrigins }, problems };
}

/**
 * Loads policy, user, project, local and `--settings` layers, then merges them with the CLI flags.
 * A missing file is skipped; a broken one is reported (file, JSON path, reason) and the rest of it,
 * and every other file, still loads.
 */
export async function loadSettings(options: LoadSettingsOptions): Promise<LoadedSettings> {
  const paths = settingsFilePaths(options);
  const reads: Array<Promise<{ layer?: SettingsLayer; problems: SettingsProblem[] }>> = [
    readLayer("policySettings", paths.policySettings),
    readLayer("userSettings", paths.userSettings),
    readLayer("projectSettings", paths.projectSettings),
    options.localSettings ? readLayerFrom("localSettings", options.localSettings) : readLayer("localSettings", paths.localSettings),
  ];
  const flag = options.flagSettings?.trim();
  if (flag) {
    if (flag.startsWith("{")) {
      const { settings, problems, ruleOrigins } = parseSettingsText(flag, { source: "flagSettings", file: "--settings" });
      reads.push(Promise.resolve({ layer: { source: "flagSettings", file: "--settings", settings, ruleOrigins }, problems }));
    } else {
      reads.push(
        readLayer("flagSettings", resolve(options.cwd ?? options.workspaceRoot, flag)).then((result) =>
          result.layer || result.problems.length
            ? result
            : { problems: [{ source: "flagSettings" as const, file: flag, path: "", message: "the --settings file does not exist" }] },
        ),
      );
    }
  }
  const results = await Promise.all(reads);
  const layers = results.flatMap((result) => (result.layer ? [result.layer] : []));
  const fileProblems = results.flatMap((result) => result.problems);
  const merged = mergeSettings(layers, {
    roots: { projectRoot: resolve(options.workspaceRoot), homeDir: options.homeDir ?? homedir() },
    ...(options.cli ? { cli: options.cli } : {}),
  });
  const problems = [...fileProblems, ...merged.problems];
  return { merged: { ...merged, problems }, layers, problems };
}
