import { realpathSync, rmSync } from "node:fs";
import type { FullConfig } from "@playwright/test";
import { buildCliBundle } from "../support/cli-bundle.ts";
import { startCairn, startModelSim, tempDir } from "./support/servers.ts";
import { writeWorkspace } from "./support/workspace-fixture.ts";

/**
 * One model simulator and one `cairn serve` (production build, temporary HOME, CAIRN_HOME and workspace, fixed
 * token) for the whole run; tests read where they are from the environment and script the simulator per test.
 */
export default async function globalSetup(_config: FullConfig): Promise<() => Promise<void>> {
  // `cairn` runs its bundle only: build it from today's sources (the web app is built by the e2e task's own build).
  buildCliBundle();
  const workspace = realpathSync(tempDir("cairn-e2e-ws-"));
  writeWorkspace(workspace);
  const sim = await startModelSim();
  try {
    const cairn = await startCairn({ workspace, modelUrl: sim.url });
    process.env.CAIRN_E2E_URL = cairn.url;
    process.env.CAIRN_E2E_LOGIN_URL = cairn.loginUrl;
    process.env.CAIRN_E2E_LOOPBACK_URL = cairn.loopbackUrl;
    process.env.CAIRN_E2E_TOKEN = cairn.token;
    process.env.CAIRN_E2E_WORKSPACE = workspace;
    process.env.CAIRN_E2E_SIM_URL = sim.url;
    return async () => {
      await cairn.stop();
      await sim.stop();
      // stop() also removes the server's temporary HOME (and CAIRN_HOME in it).
      rmSync(workspace, { recursive: true, force: true });
    };
  } catch (error) {
    await sim.stop();
    rmSync(workspace, { recursive: true, force: true });
    throw error;
  }
}
