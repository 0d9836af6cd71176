import type { HookEventName } from "../hooks/port.ts";
import { defaultDenialLimits, type DenialLimits } from "./denial-tracking.ts";
import type { PermissionBehavior, PermissionMode, PermissionRuleSource } from "../schema/permissions.ts";
import { mergeContextSettings, type ContextSettings } from "./context-settings.ts";
import { mergeAutoModeSettings, type AutoModeSettings } from "./auto-mode/auto-mode-settings.ts";
import { resolvePosix } from "./posix-path.ts";
import { compileRule, type CompiledRule, type PathRuleRoots } from "./rule-matcher.ts";
import { splitToolListFlag } from "./rule-parser.ts";
import type { RuleOrigins } from "./settings-validate.ts";
import type { HookCommandConfig, McpServerConfig, SandboxSettings, SettingsFile, SettingsProblem, SettingsSource } from "./settings-schema.ts";

/** One settings file (or `--settings` value) after validation. */
export type SettingsLayer = {
  source: SettingsSource;
  file: string;
  settings: SettingsFile;
  /** Index in the file of each kept rule, when validation dropped some (for problem paths). */
  ruleOrigins?: RuleOrigins;
};

/** Permission input from the command line (`--allowedTools`, `--disallowedTools`, `--permission-mode`). */
export type CliPermissionInput = {
  allowedTools?: readonly string[];
  disallowedTools?: readonly string[];
  permissionMode?: PermissionMode;
};

export type HookGroup = { event: HookEventName; matcher?: string; hooks: HookCommandConfig[]; source: SettingsSource };

export type MergedSettings = {
  permissions: {
    /** deny, ask and allow rules of every source, highest-priority source first. */
    rules: CompiledRule[];
    /** The mode a session starts in: CLI flag, else the highest-priority `defaultMode`, else default. */
    defaultMode: PermissionMode;
    additionalDirectories: string[];
    disableBypassPermissionsMode: boolean;
    /** `permissions.denialTracking`, each key from the highest-priority file that sets it. */
    denialLimits: DenialLimits;
  };
  hooks: HookGroup[];
  allowManagedHooksOnly: boolean;
  env: Record<string, string>;
  model?: string;
  /** The model used while in plan mode (alias or id). */
  planModel?: string;
  thinking?: SettingsFile["thinking"];
  promptCaching?: SettingsFile["promptCaching"];
  sandbox: SandboxSettings;
  mcpServers: Record<string, { config: McpServerConfig; source: SettingsSource }>;
  /** The context pipeline's settings (prompt-cache TTL, budgets). */
  context: ContextSettings;
  /** `autoModeModel` (alias or id) and `autoModeTimeoutMs`, defaults filled in. */
  autoMode: AutoModeSettings;
  problems: SettingsProblem[];
};

/** Highest priority first: managed policy, `--settings`, local, project, user. */
export const settingsSourcePriority: readonly SettingsSource[] = ["policySettings", "flagSettings", "localSettings", "projectSettings", "userSettings"];

/** Rule citation order within one behaviour: policy first, then the command line, session, files. */
export const ruleSourcePriority: readonly PermissionRuleSource[] = [
  "policySettings",
  "cliArg",
  "command",
  "session",
  "localSettings",
  "projectSettings",
  "userSettings",
];

export function ruleSourceOf(source: SettingsSource): PermissionRuleSource {
  return source === "flagSettings" ? "cliArg" : source;
}

const behaviors: readonly PermissionBehavior[] = ["deny", "ask", "allow"];

function resolveDirectory(directory: string, roots: PathRuleRoots): string {
  if ((directory === "~" || directory.startsWith("~/")) && roots.homeDir) return resolvePosix(roots.homeDir, directory.slice(2));
  return resolvePosix(roots.projectRoot, directory);
}

export function sortRulesBySource(rules: CompiledRule[]): CompiledRule[] {
  return rules.sort((left, right) => ruleSourcePriority.indexOf(left.source) - ruleSourcePriority.indexOf(right.source));
}

/**
 * Merges layers the way Claude Code does: rule lists and hook lists concatenate (each entry keeps
 * its source); `env` and `mcpServers` merge by key and scalars take the highest-priority value.
 * An invalid rule is reported with its file and JSON path and left out; the rest still applies.
 */
export function mergeSettings(layers: readonly SettingsLayer[], options: { roots: PathRuleRoots; cli?: CliPermissionInput }): MergedSettings {
  const ordered = [...layers].sort((left, right) => settingsSourcePriority.indexOf(left.source) - settingsSourcePriority.indexOf(right.source));
  const problems: SettingsProblem[] = [];
  const rules: CompiledRule[] = [];
  const hooks: HookGroup[] = [];
  const additionalDirectories: string[] = [];
  let defaultMode: PermissionMode | undefined;
  let disabledBy: SettingsLayer | undefined;
  let model: string | undefined;
  let planModel: string | undefined;
  const denialLimits: Partial<DenialLimits> = {};
  let thinking: SettingsFile["thinking"];
  let promptCaching: SettingsFile["promptCaching"];

  const addRule = (rule: string, behavior: PermissionBehavior, source: PermissionRuleSource, where: Pick<SettingsProblem, "source" | "file" | "path">) => {
    const compiled = compileRule(rule, behavior, source, options.roots);
    if (compiled.ok) rules.push(compiled.rule);
    else problems.push({ ...where, message: compiled.message });
  };

  const cli = options.cli ?? {};
  splitToolListFlag(cli.disallowedTools ?? []).forEach((rule, index) =>
    addRule(rule, "deny", "cliArg", { source: "cliArg", file: "--disallowedTools", path: `[${index}]` }),
  );
  splitToolListFlag(cli.allowedTools ?? []).forEach((rule, index) =>
    addRule(rule, "allow", "cliArg", { source: "cliArg", file: "--allowedTools", path: `[${index}]` }),
  );

  for (const layer of ordered) {
    const { permissions } = layer.settings;
    for (const behavior of behaviors) {
      permissions?.[behavior]?.forEach((rule, index) =>
        addRule(rule, behavior, ruleSourceOf(layer.source), {
          source: layer.source,
          file: layer.file,
          path: `permissions.${behavior}[${layer.ruleOrigins?.[behavior]?.[index] ?? index}]`,
        }),
      );
    }
    defaultMode ??= permissions?.defaultMode;
    denialLimits.suggestAfter ??= permissions?.denialTracking?.suggestAfter;
    denialLimits.maxConsecutive ??= permissions?.denialTracking?.maxConsecutive;
    denialLimits.maxTotal ??= permissions?.denialTracking?.maxTotal;
    if (permissions?.disableBypassPermissionsMode === "disable") disabledBy ??= layer;
    for (const directory of permissions?.additionalDirectories ?? []) additionalDirectories.push(resolveDirectory(directory, options.roots));
    model ??= layer.settings.model;
    planModel ??= layer.settings.planModel;
    thinking ??= layer.settings.thinking;
    promptCaching ??= layer.settings.promptCaching;
    for (const [event, groups] of Object.entries(layer.settings.hooks ?? {})) {
      for (const group of groups ?? []) {
        hooks.push({
          event: event as HookEventName,
          hooks: group.hooks,
          source: layer.source,
          ...(group.matcher === undefined ? {} : { matcher: group.matcher }),
        });
      }
    }
  }

  // Lowest priority first, so higher layers overwrite.
  const env: Record<string, string> = {};
  const sandbox: SandboxSettings = {};
  const mcpServers: MergedSettings["mcpServers"] = {};
  for (const layer of [...ordered].reverse()) {
    Object.assign(env, layer.settings.env ?? {});
    Object.assign(sandbox, layer.settings.sandbox ?? {});
    for (const [name, config] of Object.entries(layer.settings.mcpServers ?? {})) mcpServers[name] = { config, source: layer.source };
  }

  let mode = cli.permissionMode ?? defaultMode ?? "default";
  if (mode === "bypassPermissions" && disabledBy) {
    problems.push({
      source: disabledBy.source,
      file: disabledBy.file,
      path: "permissions.disableBypassPermissionsMode",
      message: "bypassPermissions mode is disabled by settings; starting in default mode",
    });
    mode = "default";
  }
  const policy = ordered.find((layer) => layer.source === "policySettings");
  return {
    permissions: {
      rules: sortRulesBySource(rules),
      defaultMode: mode,
      additionalDirectories,
      disableBypassPermissionsMode: disabledBy !== undefined,
      denialLimits: {
        suggestAfter: denialLimits.suggestAfter ?? defaultDenialLimits.suggestAfter,
        maxConsecutive: denialLimits.maxConsecutive ?? defaultDenialLimits.maxConsecutive,
        maxTotal: denialLimits.maxTotal ?? defaultDenialLimits.maxTotal,
      },
    },
    hooks,
    allowManagedHooksOnly: policy?.settings.allowManagedHooksOnly === true,
    env,
    ...(model === undefined ? {} : { model }),
    ...(planModel === undefined ? {} : { planModel }),
    ...(thinking === undefined ? {} : { thinking }),
    ...(promptCaching === undefined ? {} : { promptCaching }),
    sandbox,
    mcpServers,
    context: mergeContextSettings(ordered),
    autoMode: mergeAutoModeSettings(ordered),
    problems,
  };
}
