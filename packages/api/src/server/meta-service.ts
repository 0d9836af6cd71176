import { probeSandbox } from "@cairn/worker";
import type { Runtime } from "../runtime/runtime-types.ts";
import type { MetaPort } from "../router/context.ts";
import type { MetaInfo } from "../router/types.ts";
import type { TrustRepository } from "./trust-store.ts";

/** What the page shows about the server, and the one-time trust of the workspace. */
export class MetaService implements MetaPort {
  private readonly runtime: Runtime;
  private readonly trustStore: TrustRepository;

  constructor(runtime: Runtime, trustStore: TrustRepository) {
    this.runtime = runtime;
    this.trustStore = trustStore;
  }

  async info(): Promise<MetaInfo> {
    // Trusted meanwhile on another node (distributed mode shares the decision): take it up here too.
    if (!this.runtime.trusted && (await this.trustStore.isTrusted(this.runtime.workspaceRoot).catch(() => false))) await this.adoptTrust();
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
    await this.adoptTrust();
    return { trusted: true };
  }

  private async adoptTrust(): Promise<void> {
    this.runtime.setTrusted(true);
    // The workspace's own MCP servers (.mcp.json, project settings) may start now.
    await this.runtime.mcp.setTrusted(true);
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
