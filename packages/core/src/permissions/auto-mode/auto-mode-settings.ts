import { z } from "zod";

/** The model alias auto mode classifies with unless `autoModeModel` names another: a fast one. */
export const DEFAULT_AUTO_MODE_MODEL = "haiku";
/** How long auto mode waits for its classifier before asking the user instead. */
export const DEFAULT_AUTO_MODE_TIMEOUT_MS = 5_000;

/** Auto mode's settings in settings.json (top-level keys, each from the highest-priority file that sets it). */
export const autoModeSettingsShape = {
  /** The classifier's model: an alias (haiku, sonnet, opus) or a model id. */
  autoModeModel: z.string().min(1).optional(),
  /** Milliseconds the classifier may take; past it the call is asked about. */
  autoModeTimeoutMs: z.int().positive().max(120_000).optional(),
};

export type AutoModeSettings = { model: string; timeoutMs: number };

type AutoModeSettingsFile = { autoModeModel?: string | undefined; autoModeTimeoutMs?: number | undefined };

export function mergeAutoModeSettings(layers: ReadonlyArray<{ settings: AutoModeSettingsFile }>): AutoModeSettings {
  const model = layers.find((layer) => layer.settings.autoModeModel !== undefined)?.settings.autoModeModel;
  const timeoutMs = layers.find((layer) => layer.settings.autoModeTimeoutMs !== undefined)?.settings.autoModeTimeoutMs;
  return { model: model ?? DEFAULT_AUTO_MODE_MODEL, timeoutMs: timeoutMs ?? DEFAULT_AUTO_MODE_TIMEOUT_MS };
}
