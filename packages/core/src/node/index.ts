export {};
// Permissions, settings and hooks (Node).
export { createNodeShellParser, nodeShellWasmLoader } from "./shell-parser.ts";
export { DEFAULT_MANAGED_SETTINGS_PATH, loadSettings, settingsFilePaths } from "./settings-loader.ts";
export type { LoadedSettings, LoadSettingsOptions } from "./settings-loader.ts";
export { addPermissionRule, createPermissionRulePersister, localSettingsPath, SettingsWriteError, settingsWriteErrorCodes, writeFileAtomic } from "./settings-writer.ts";
export type { SettingsWriteErrorCode } from "./settings-writer.ts";
export { createNodeHookRunner } from "./hook-runner.ts";
export type { NodeHookRunnerOptions } from "./hook-runner.ts";
