import { z } from "zod";
import { autoModeSettingsShape } from "./auto-mode/auto-mode-settings.ts";
import { hookEventNames } from "../hooks/port.ts";
import { permissionModeSchema } from "../schema/permissions.ts";
import { contextSettingsShape } from "./context-settings.ts";

// Claude Code's settings.json format. Objects are loose: keys Cairn does not use (statusLine,
// includeCoAuthoredBy, …) survive a load and a rewrite untouched. Built at their first use (z.lazy): a start without
// settings files validates none, and building them was a cost every start paid.

export const hookCommandSchema = z.lazy(() =>
  z
    .object({
      type: z.literal("command"),
      command: z.string().min(1),
      /** Seconds, as in Claude Code. */
      timeout: z.number().positive().optional(),
    })
    .loose(),
);
export type HookCommandConfig = z.infer<typeof hookCommandSchema>;

export const hookMatcherSchema = z.lazy(() =>
  z
    .object({
      matcher: z.string().optional(),
      hooks: z.array(hookCommandSchema),
    })
    .loose(),
);
export type HookMatcherConfig = z.infer<typeof hookMatcherSchema>;

export const hooksSettingsSchema = z.lazy(() => z.partialRecord(z.enum(hookEventNames), z.array(hookMatcherSchema)));
export type HooksSettings = z.infer<typeof hooksSettingsSchema>;

export const permissionsSettingsSchema = z.lazy(() =>
  z
    .object({
      allow: z.array(z.string()).optional(),
      ask: z.array(z.string()).optional(),
      deny: z.array(z.string()).optional(),
      defaultMode: permissionModeSchema.optional(),
      additionalDirectories: z.array(z.string()).optional(),
      disableBypassPermissionsMode: z.literal("disable").optional(),
      /** Cairn: when repeated denials suggest a rule, and when auto mode stops trusting its classifier. */
      denialTracking: z
        .object({
          suggestAfter: z.array(z.number().int().positive()).optional(),
          maxConsecutive: z.number().int().positive().optional(),
          maxTotal: z.number().int().positive().optional(),
        })
        .optional(),
    })
    .loose(),
);

export const sandboxSettingsSchema = z.lazy(() =>
  z
    .object({
      enabled: z.boolean().optional(),
      allowNetwork: z.boolean().optional(),
      allowedDomains: z.array(z.string()).optional(),
      /** Claude Code's switch: Bash runs without asking when it runs inside the sandbox. */
      autoAllowBashIfSandboxed: z.boolean().optional(),
      /** Cairn's switch: absent shell/git/editor files in the workspace root are refused too (empty stand-in directories while a shell runs). */
      protectMissingFiles: z.boolean().optional(),
    })
    .loose(),
);
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

const stdioServerSchema = z.lazy(() =>
  z
    .object({
      type: z.literal("stdio").optional(),
      command: z.string().min(1),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
    })
    .loose(),
);
const remoteServerSchema = z.lazy(() =>
  z
    .object({
      type: z.enum(["http", "sse"]),
      url: z.string().min(1),
      headers: z.record(z.string(), z.string()).optional(),
    })
    .loose(),
);
export const mcpServerConfigSchema = z.lazy(() => z.union([stdioServerSchema, remoteServerSchema]));
export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;
export type McpStdioServerConfig = z.infer<typeof stdioServerSchema>;
export type McpRemoteServerConfig = z.infer<typeof remoteServerSchema>;

export const settingsFileSchema = z.lazy(() =>
  z
    .object({
      permissions: permissionsSettingsSchema.optional(),
      hooks: hooksSettingsSchema.optional(),
      env: z.record(z.string(), z.string()).optional(),
      model: z.string().optional(),
      /** The model used while in plan mode (Claude Code's `opusplan`): an alias (opus, sonnet, haiku) or an id. */
      planModel: z.string().min(1).optional(),
      /** Extended thinking: `auto` (adaptive where the model supports it), `off`, or a fixed `{ budgetTokens }`. */
      thinking: z.union([z.enum(["auto", "off"]), z.strictObject({ budgetTokens: z.int().min(1024) })]).optional(),
      /** `cache_control` breakpoints: by model (`auto`), for every model (`always`), or `never`. */
      promptCaching: z.enum(["auto", "always", "never"]).optional(),
      sandbox: sandboxSettingsSchema.optional(),
      mcpServers: z.record(z.string(), mcpServerConfigSchema).optional(),
      /** Policy only: ignore hooks from every other source. */
      allowManagedHooksOnly: z.boolean().optional(),
      ...contextSettingsShape,
      ...autoModeSettingsShape,
    })
    .loose(),
);
export type SettingsFile = z.infer<typeof settingsFileSchema>;

/** Where settings came from, highest priority first. `flagSettings` is `--settings`. */
export const settingsSourceSchema = z.enum(["policySettings", "flagSettings", "localSettings", "projectSettings", "userSettings"]);
export type SettingsSource = z.infer<typeof settingsSourceSchema>;

export const settingsProblemSchema = z.object({
  source: z.union([settingsSourceSchema, z.literal("cliArg")]),
  /** The file, or `--settings`/`--allowedTools` for command-line input. */
  file: z.string(),
  /** JSON path of the offending value, e.g. `permissions.allow[2]`; empty for the whole file. */
  path: z.string(),
  message: z.string(),
});
export type SettingsProblem = z.infer<typeof settingsProblemSchema>;
