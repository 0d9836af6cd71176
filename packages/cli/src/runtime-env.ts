import { fileURLToPath } from "node:url";
import type { RuntimeOptions } from "@cairn/api/runtime";
import type { CliEnv } from "./env.ts";

/** The local worker process `cairn` starts: its own bundle (dist/worker.cjs, built with the CLI's), or with CAIRN_DEV=1 the worker's sources. */
function localWorkerScript(env: CliEnv): string | undefined {
  // In the bundle `import.meta.url` is still this source file's (build.mjs keeps it), so this finds bin/ either way.
  return env.dev ? undefined : fileURLToPath(new URL("../bin/worker.js", import.meta.url));
}

/** The runtime options the environment sets, the same for `cairn -p` and `cairn serve` (the model comes from flags too, so each command picks it). */
export function runtimeOptionsFromEnv(env: CliEnv) {
  return {
    cairnHome: env.cairnHome,
    apiKey: env.apiKey,
    baseURL: env.baseURL,
    maxToolConcurrency: env.maxToolConcurrency,
    promptCaching: env.promptCaching,
    maxThinkingTokens: env.maxThinkingTokens,
    dumpPrompts: env.dumpPrompts,
    maxRetries: env.maxRetries,
    contextWindow: env.contextWindow,
    autoCompactPct: env.autoCompactPct,
    autoCompact: env.autoCompact,
    workerScript: localWorkerScript(env),
  } satisfies Partial<RuntimeOptions>;
}

/** Settings files that did not load as a whole: said on stderr, the run goes on with the rest. */
export function reportSettingsProblems(
  problems: ReadonlyArray<{ file: string; path?: string | undefined; message: string }>,
  stderr: (text: string) => void,
): void {
  for (const problem of problems) stderr(`cairn: settings problem in ${problem.file}${problem.path ? ` at ${problem.path}` : ""}: ${problem.message}\n`);
}
