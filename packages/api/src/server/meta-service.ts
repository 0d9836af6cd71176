import { probeSandbox } from "@cairn/worker";
import type { Runtime } from "../runtime/create-runtime.ts";
import type { MetaPort } from "../router/context.ts";
import type { MetaInfo } from "../router/types.ts";
import type { TrustStore } from "./trust-store.ts";

/** What the page shows about the server, and the one-time trust of the workspace. */
export class MetaService implements MetaPort {
  private readonly runtime: Runtime;
  private readonly trustStore: TrustStore;

  constructor(runtime: Runtime, trustStore: TrustStore) {
    this.runtime = runtime;
    this.trustStore = trustStore;
  }

  async info(): Promise<MetaInfo> {
    return {
      version: this.runtime.version,
      demo: this.runtime.model.demo,
      model: this.runtime.model.model,
      workspaceRoot: this.runtime.workspaceRoot,
      sandbox: await sandboxStatus(this.runtime),
      trusted: this.runtime.trusted,
    };
  }

  async trust(): Promise<{ trusted: boolean }> {
    await this.trustStore.trust(this.runtime.workspaceRoot);
    this.runtime.setTrusted(true);
    // The workspace's own MCP servers (.mcp.json, project settings) may start now.
    await this.runtime.mcp.setTrusted(true);
    return { trusted: true };
  }
}

/** Whether Bash (and the terminal) run sandboxed here, and why not. */
export async function sandboxStatus(runtime: Runtime): Promise<{ available: boolean; reason?: string }> {
  if (runtime.settings.merged.sandbox.enabled === false) {
    return { available: false, reason: 'The sandbox is turned off in the settings ("sandbox": { "enabled": false }): commands run unconfined.' };
  }
  const probe = await probeSandbox();
  return probe.available ? { available: true } : { available: false, reason: probe.reason ?? "The sandbox is unavailable" };
}
