// Entry point of the standalone process (bin/model-sim.js).
import { parseCliArgs, startFromCli, USAGE } from "./cli.ts";

async function main(): Promise<void> {
  const options = parseCliArgs(process.argv.slice(2));
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const sim = await startFromCli(options);
  process.stdout.write(`MODEL_SIM_URL=${sim.url}\n`);
  const shutdown = (): void => {
    void sim.close().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
