import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export type SimProcess = { url: string; setScenario(scenario: unknown): Promise<void>; close(): Promise<void> };

/** Starts model-sim as a child process (its own CPU, as a remote API has) and waits for its URL. */
export async function startSimProcess(options: { textChunkSize?: number; demo?: boolean } = {}): Promise<SimProcess> {
  const require = createRequire(import.meta.url);
  const bin = join(dirname(require.resolve("@cairn/model-sim")), "..", "bin", "model-sim.js");
  const args = [bin, "--port", "0", "--chunk-delay-ms", "0"];
  if (options.textChunkSize) args.push("--text-chunk-size", String(options.textChunkSize));
  if (options.demo) args.push("--demo");
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = /MODEL_SIM_URL=(\S+)/.exec(buffer);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`model-sim exited early with code ${code}`)));
  });
  return {
    url,
    async setScenario(scenario) {
      const response = await fetch(`${url}/_sim/scenario`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(scenario) });
      if (!response.ok) throw new Error(`model-sim refused the scenario: ${await response.text()}`);
    },
    close: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
