import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { startRemoteWorkerServer } from "@cairn/worker";
import { readEnv } from "../env.ts";
import { CommandUsageError, parseCommandArgs, type CommandIo } from "./transcript.ts";

export const WORKER_HELP = `Usage:
  cairn worker --listen <host:port> --root <dir> [--tls-cert <file> --tls-key <file>]
      Serves workspaces to API nodes (cairn serve --worker-url ws://host:port) over WebSocket.
      CAIRN_WORKER_TOKEN (at least 16 characters) is required; clients send it as a bearer token.
      Every workspace is a directory directly under --root; tools cannot reach outside it.
      --tls-cert/--tls-key (PEM) serve wss:// instead of ws://.
`;

export type WorkerCommandIo = CommandIo & { signal?: AbortSignal };

/** `host:port` → its parts; `[::1]:4000` for IPv6. */
function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (match === null || !Number.isInteger(port) || port > 65_535) throw new CommandUsageError(`--listen must be host:port, not "${value}"`);
  return { host: match[1] ?? match[2] ?? "", port };
}

/** `cairn worker --listen …`; runs until SIGINT/SIGTERM (or `io.signal`); returns the exit code (1 failed, 2 usage). */
export async function runWorkerCommand(argv: string[], io: WorkerCommandIo): Promise<number> {
  try {
    const { values, positionals } = parseCommandArgs(argv, {
      listen: { type: "string" },
      root: { type: "string" },
      "tls-cert": { type: "string" },
      "tls-key": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    });
    if (values.help) {
      io.stdout(WORKER_HELP);
      return 0;
    }
    if (positionals.length > 0) throw new CommandUsageError(`unexpected argument "${positionals[0]}"`);
    if (values.listen === undefined) throw new CommandUsageError("--listen <host:port> is required");
    if (values.root === undefined) throw new CommandUsageError("--root <dir> is required");
    if ((values["tls-cert"] === undefined) !== (values["tls-key"] === undefined)) throw new CommandUsageError("--tls-cert and --tls-key go together");
    const { host, port } = parseListen(values.listen);
    const { workerToken } = readEnv(io.env);
    if (workerToken === undefined) {
      io.stderr("cairn worker: CAIRN_WORKER_TOKEN is not set; a worker never serves without a token\n");
      return 2;
    }
    const tls =
      values["tls-cert"] === undefined || values["tls-key"] === undefined
        ? undefined
        : { cert: await readFile(values["tls-cert"], "utf8"), key: await readFile(values["tls-key"], "utf8") };
    const server = await startRemoteWorkerServer({
      host,
      port,
      token: workerToken,
      root: resolve(values.root),
      temporaryDirectory: tmpdir(),
      tls,
      log: (line) => io.stderr(`cairn worker: ${line}\n`),
    });
    io.stdout(`cairn worker: listening on ${server.url}\n`);
    await new Promise<void>((done) => {
      const stop = () => done();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      io.signal?.addEventListener("abort", stop, { once: true });
    });
    await server.close();
    return 0;
  } catch (error) {
    if (error instanceof CommandUsageError) {
      io.stderr(`cairn worker: ${error.message}\n${WORKER_HELP}`);
      return 2;
    }
    io.stderr(`cairn worker: ${(error as Error).message}\n`);
    return 1;
  }
}
