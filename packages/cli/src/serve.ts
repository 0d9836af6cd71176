import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { hostname } from "node:os";
import {
  DEFAULT_HOST,
  DEFAULT_PORT,
  DistributedConfigError,
  ensureSampleWorkspace,
  isWebAppBuilt,
  resolveDistributedConfig,
  ServerConfigError,
  startServer,
  type CairnServer,
  type DistributedConfig,
} from "@cairn/api";
import { httpFetch } from "@cairn/core/node";
import { remoteWorkspaceNameSchema } from "@cairn/worker";
import { childProcessEnv, useProductionNodeEnv, type CliEnv } from "./env.ts";
import { cliVersion } from "./version.ts";
import { reportSettingsProblems, runtimeOptionsFromEnv } from "./runtime-env.ts";
import { turnOffPretenuring } from "./v8-heap.ts";

export const SERVE_HELP = `Usage: cairn serve [--host 127.0.0.1] [--port 3000] [--workspace <dir>] [--allowed-host <name>]… [--api-only]

Starts the web IDE. It prints a URL carrying an access token (on its own name, http://cairn-<random>.localhost:<port>);
open it once and the browser stays signed in for 30 days.
  --host <addr>       interface to listen on (default 127.0.0.1). Any other address needs CAIRN_TOKEN set.
  --port <n>          port (default 3000; 0 picks a free one)
  --workspace <dir>   the folder to open (default: a sample project in $CAIRN_HOME/workspaces/sample); with
                      --worker-url, the workspace's name on the worker (a directory under its --root)
  --allowed-host <name[:port]>  another host name to answer to (a reverse proxy's, a LAN name); repeatable.
                      Requests under any other name are refused (DNS rebinding).
  --api-only          serve /api/trpc only, without the web app (for \`next dev\` against this server)
Distributed mode (see "Running on several machines" in the README):
  --redis-url <redis://…>        event fan-out over Redis Streams (CAIRN_REDIS_URL)
  --database-url <postgres://…>  shared state in PostgreSQL (CAIRN_DATABASE_URL)
  --worker-url <ws://…>          a \`cairn worker --listen\` host; repeatable or comma-separated (CAIRN_WORKER_URL).
                                 The workspace lives on one of them (recorded per workspace); needs CAIRN_WORKER_TOKEN.
  --node-id <id>                 this node's id in leases and logs (CAIRN_NODE_ID; default <hostname>-<pid>)
  --warm-up <on|off>             before reporting ready, run scratch sessions through the node's code so the first
                                 real ones stream at full speed (CAIRN_WARM_UP; default on, a few seconds)
Environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, CAIRN_HOME, CAIRN_MODEL, CAIRN_TOKEN (fixed access token),
  CAIRN_ALLOWED_HOSTS (comma-separated, added to --allowed-host), CAIRN_SHARE_STREAMS (live-share streams open at
  once per address/per share/in total, default 4/20/100).
`;

export type ServeIo = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Stops the server; without it SIGINT/SIGTERM do. */
  signal?: AbortSignal;
  /** Called once the server listens (tests). */
  onListening?: (server: CairnServer) => void;
};

class ServeUsageError extends Error {
  readonly code = "usage";
}

/** `cairn serve`: runs until SIGINT/SIGTERM (or `io.signal`), then shuts down cleanly. Returns the exit code. */
export async function runServe(argv: string[], env: CliEnv, io: ServeIo): Promise<number> {
  let options: ServeOptions;
  try {
    const parsed = parseServeArgs(argv);
    if (parsed === "help") {
      io.stdout(SERVE_HELP);
      return 0;
    }
    options = parsed;
  } catch (error) {
    io.stderr(`cairn serve: ${(error as Error).message}\n${SERVE_HELP}`);
    return 2;
  }
  let distributed: DistributedConfig | undefined;
  try {
    distributed = resolveDistributedConfig(options.distributed, env.distributed, () => `${hostname()}-${process.pid}`);
  } catch (error) {
    if (!(error instanceof DistributedConfigError)) throw error;
    io.stderr(`cairn serve: ${error.message}\n`);
    return 2;
  }
  // A node of a cluster, serving many sessions at once: no pretenuring (v8-heap.ts).
  if (distributed) turnOffPretenuring();
  const onWorkers = (distributed?.workerUrls.length ?? 0) > 0;
  if (onWorkers) {
    const problem = workerModeProblem(options.workspace, env.workerToken);
    if (problem !== undefined) {
      io.stderr(`cairn serve: ${problem}\n`);
      return 2;
    }
  }

  // On workers, --workspace is the workspace's name there; embedded, a folder here.
  const workspace = onWorkers ? (options.workspace ?? "") : options.workspace ? resolve(options.workspace) : await ensureSampleWorkspace(env.cairnHome);
  if (!onWorkers && !(await isDirectory(workspace))) {
    io.stderr(`cairn serve: ${workspace} is not a directory\n`);
    return 1;
  }
  let webDir: string | null = null;
  if (!options.apiOnly) {
    webDir = findWebDir();
    if (!webDir) {
      io.stderr("cairn serve: the web app (apps/web) was not found beside the CLI; use --api-only to serve the API alone\n");
      return 1;
    }
    useProductionNodeEnv();
    if (!isWebAppBuilt(webDir)) {
      io.stderr(`cairn: the web app has not been built yet; building it now (next build in ${webDir}, about a minute)…\n`);
      const built = await buildWebApp(webDir, io);
      if (!built) {
        io.stderr("cairn serve: the web app build failed (see above)\n");
        return 1;
      }
    }
  }

  const stop = new AbortController();
  const onSignal = () => stop.abort();
  if (io.signal) io.signal.addEventListener("abort", onSignal, { once: true });
  else {
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  }
  let server: CairnServer | undefined;
  // Telemetry (CAIRN_ENABLE_TELEMETRY=1): the SDK is loaded only then, and flushed at exit.
  const telemetry = env.telemetry
    ? await (await import("@cairn/api/telemetry")).startTelemetry(env.telemetry, {
        serviceVersion: cliVersion(),
        warn: (message) => io.stderr(`cairn: ${message}\n`),
      })
    : undefined;
  try {
    server = await startServer({
      ...runtimeOptionsFromEnv(env),
      telemetry: telemetry?.telemetry,
      workspace,
      webDir,
      host: options.host,
      port: options.port,
      version: cliVersion(),
      // Over node:http: each streamed delta costs less CPU than through Node's fetch (undici's parser and fetch body).
      modelFetch: httpFetch,
      model: env.model,
      fallbackModel: env.fallbackModel,
      ...(env.token ? { token: env.token } : {}),
      allowedHosts: [...options.allowedHosts, ...env.allowedHosts],
      ...(env.shareStreams ? { share: { streams: env.shareStreams } } : {}),
      distributed,
      ...(env.workerToken ? { workerToken: env.workerToken } : {}),
    });
    io.stdout(`Cairn is running at ${server.loginUrl}\n`);
    if (server.ideUrl !== server.url)
      io.stdout(`  also at ${server.url}/?token=${server.token} (for a browser or tool that does not resolve *.localhost names)\n`);
    io.stdout(`  workspace: ${server.runtime.workspaceRoot}\n`);
    const worker = server.worker;
    if (worker) {
      io.stdout(`  on worker ${worker.workerUrl} (assigned by node ${worker.assignedByNode} at ${worker.assignedAt}; recorded in ${worker.recordedIn})\n`);
    }
    for (const line of server.distributed?.describe() ?? []) io.stdout(`  ${line}\n`);
    if (server.runtime.model.demo) io.stdout("  no ANTHROPIC_API_KEY is set: the offline demo model answers (it knows a few commands only)\n");
    reportSettingsProblems(server.runtime.settings.problems, io.stderr);
    io.onListening?.(server);
    if (!stop.signal.aborted) await new Promise((done) => stop.signal.addEventListener("abort", done, { once: true }));
    io.stdout("Cairn is shutting down…\n");
    return 0;
  } catch (error) {
    if (error instanceof ServerConfigError) {
      io.stderr(`cairn serve: ${error.message}\n`);
      return 2;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") {
      io.stderr(`cairn serve: port ${options.port} is already in use; pick another with --port\n`);
      return 1;
    }
    io.stderr(`cairn serve: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await server?.close();
    await telemetry?.shutdown();
    io.signal?.removeEventListener("abort", onSignal);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

type ServeOptions = {
  host: string;
  port: number;
  workspace: string | undefined;
  apiOnly: boolean;
  allowedHosts: string[];
  distributed: {
    redisUrl: string | undefined;
    databaseUrl: string | undefined;
    workerUrls: string[];
    nodeId: string | undefined;
    warmUp: string | undefined;
  };
};

/** Why `--worker-url` cannot start as given (checked before anything is dialled), or undefined. */
function workerModeProblem(workspace: string | undefined, workerToken: string | undefined): string | undefined {
  if (workerToken === undefined) return "--worker-url needs CAIRN_WORKER_TOKEN set to the token the workers were started with";
  if (workspace === undefined) return "--worker-url needs --workspace <name>: the workspace's directory name under the worker's --root";
  const name = remoteWorkspaceNameSchema.safeParse(workspace);
  if (!name.success) {
    return `with --worker-url, --workspace names a workspace on the worker, not a folder here ("${workspace.slice(0, 100)}"): ${name.error.issues[0]?.message ?? "invalid"}`;
  }
  return undefined;
}

function parseServeArgs(argv: string[]): "help" | ServeOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: "string", default: DEFAULT_HOST },
        port: { type: "string", default: String(DEFAULT_PORT) },
        workspace: { type: "string" },
        "allowed-host": { type: "string", multiple: true, default: [] },
        "api-only": { type: "boolean", default: false },
        "redis-url": { type: "string" },
        "database-url": { type: "string" },
        "worker-url": { type: "string", multiple: true, default: [] },
        "node-id": { type: "string" },
        "warm-up": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new ServeUsageError((error as Error).message);
  }
  if (values.help) return "help";
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new ServeUsageError(`--port must be a port number, not "${values.port}"`);
  return {
    host: values.host,
    port,
    workspace: values.workspace,
    apiOnly: values["api-only"],
    allowedHosts: values["allowed-host"],
    distributed: {
      redisUrl: values["redis-url"],
      databaseUrl: values["database-url"],
      workerUrls: values["worker-url"],
      nodeId: values["node-id"],
      warmUp: values["warm-up"],
    },
  };
}

/** apps/web of this checkout: found by walking up from this file (works from src/ and from a dist bundle). */
function findWebDir(): string | null {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    const candidate = join(directory, "apps", "web");
    if (existsSync(join(candidate, "package.json"))) return candidate;
    directory = dirname(directory);
  }
  return null;
}

/** `next build` in the web app, its output passed through to stderr. */
function buildWebApp(webDir: string, io: ServeIo): Promise<boolean> {
  let nextBin: string;
  try {
    nextBin = createRequire(join(webDir, "package.json")).resolve("next/dist/bin/next");
  } catch {
    io.stderr("cairn serve: Next.js is not installed for apps/web; run npm install first\n");
    return Promise.resolve(false);
  }
  return new Promise((done) => {
    const child = spawn(process.execPath, [nextBin, "build"], {
      cwd: webDir,
      env: childProcessEnv({ NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (chunk: Buffer) => io.stderr(chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => io.stderr(chunk.toString("utf8")));
    child.once("error", (error) => {
      io.stderr(`cairn serve: could not run next build: ${error.message}\n`);
      done(false);
    });
    child.once("close", (code) => done(code === 0 && isWebAppBuilt(webDir)));
  });
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
