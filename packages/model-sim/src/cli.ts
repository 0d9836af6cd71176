import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { z } from "zod";
import { startModelSim, type ModelSim } from "./model-sim.ts";
import { parseScenario, type Scenario } from "./scenario.ts";

export const USAGE = `Usage: model-sim [--host 127.0.0.1] [--port 0] [--scenario file.json | --demo]
                 [--chunk-delay-ms 0] [--text-chunk-size 16]

Serves an Anthropic-compatible Messages API on http://<host>:<port> and prints
MODEL_SIM_URL=<url> on stdout once listening. --port 0 picks a free port.`;

export class UsageError extends Error {
  readonly code = "usage";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UsageError";
  }
}

const cliOptionsSchema = z.object({
  host: z.string().min(1),
  port: z.coerce.number().int().min(0).max(65535),
  scenario: z.string().min(1).optional(),
  demo: z.boolean(),
  chunkDelayMs: z.coerce.number().int().nonnegative(),
  textChunkSize: z.coerce.number().int().positive(),
  help: z.boolean(),
});

export type CliOptions = z.infer<typeof cliOptionsSchema>;

export function parseCliArgs(argv: readonly string[]): CliOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        host: { type: "string", default: "127.0.0.1" },
        port: { type: "string", default: "0" },
        scenario: { type: "string" },
        demo: { type: "boolean", default: false },
        "chunk-delay-ms": { type: "string", default: "0" },
        "text-chunk-size": { type: "string", default: "16" },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (error) {
    throw new UsageError(`model-sim: ${(error as Error).message}\n${USAGE}`, { cause: error });
  }
  const result = cliOptionsSchema.safeParse({
    ...values,
    chunkDelayMs: values["chunk-delay-ms"],
    textChunkSize: values["text-chunk-size"],
  });
  if (!result.success) throw new UsageError(`model-sim: invalid arguments:\n${z.prettifyError(result.error)}\n${USAGE}`);
  if (result.data.demo && result.data.scenario) throw new UsageError("model-sim: use either --scenario or --demo, not both");
  return result.data;
}

export async function loadScenarioFile(file: string): Promise<Scenario> {
  const text = await readFile(file, "utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`model-sim: scenario file ${file} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return parseScenario(json, `scenario file ${file}`);
}

export async function startFromCli(options: CliOptions): Promise<ModelSim> {
  const scenario = options.scenario === undefined ? undefined : await loadScenarioFile(options.scenario);
  return startModelSim({
    host: options.host,
    port: options.port,
    mode: options.demo ? "demo" : "script",
    chunkDelayMs: options.chunkDelayMs,
    textChunkSize: options.textChunkSize,
    ...(scenario ? { scenario } : {}),
  });
}
