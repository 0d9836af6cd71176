import type { MergedSettings } from "@cairn/core";
import type { SandboxSettings } from "@cairn/worker";

/**
 * The one mapping from the `sandbox` settings to the worker's sandbox options, shared by the
 * agent's Bash, the web terminal and the stdio MCP servers: on unless the administrator turned it
 * off, the network settings as given, and Cairn's own state directory never readable.
 */
export function sandboxOptionsFromSettings(settings: MergedSettings["sandbox"], cairnHome: string): SandboxSettings {
  return {
    enabled: settings.enabled ?? true,
    ...(settings.allowNetwork !== undefined ? { allowNetwork: settings.allowNetwork } : {}),
    ...(settings.allowedDomains ? { allowedDomains: settings.allowedDomains } : {}),
    ...(settings.protectMissingFiles !== undefined ? { protectMissingFiles: settings.protectMissingFiles } : {}),
    denyRead: [cairnHome],
  };
}
