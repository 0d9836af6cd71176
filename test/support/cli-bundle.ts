import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "./cli.ts";

/**
 * Builds `packages/cli/dist` (esbuild, a few seconds): `cairn` runs its bundle only, so tests that spawn it build it
 * first and never test an older build than the sources.
 */
export function buildCliBundle(): void {
  execFileSync(process.execPath, [join(repoRoot, "packages", "cli", "build.mjs")], { cwd: join(repoRoot, "packages", "cli"), stdio: "inherit" });
}
