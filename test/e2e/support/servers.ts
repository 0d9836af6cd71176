import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startNode, type Started } from "./processes.ts";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const webDir = join(repoRoot, "apps", "web");

export type ModelSimProcess = Started & { url: string };
/** `url` is the IDE's own name (`http://cairn-<random>.localhost:<port>`, as printed); `loopbackUrl` the bound address. */
/** `home` is the server's own temporary HOME (user-level `~/.claude` files go there); `cairnHome` is `<home>/.cairn`. */
export type CairnProcess = Started & { url: string; loopbackUrl: string; loginUrl: string; token: string; workspace: string; home: string; cairnHome: string };

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** `@cairn/model-sim` on a free port; tests script it through `POST /_sim/scenario`. */
export async function startModelSim(): Promise<ModelSimProcess> {
  const { started, match } = await startNode({
    name: "model-sim",
    args: [join(repoRoot, "packages", "model-sim", "bin", "model-sim.js"), "--port", "0"],
    cwd: repoRoot,
    env: { ...process.env },
    ready: /MODEL_SIM_URL=(\S+)/,
    timeoutMs: 60_000,
  });
  return { ...started, url: match[1]! };
}

/**
 * `cairn serve` on 127.0.0.1 and a free port (or `port`), with a fixed token and a temporary HOME of its own
 * (CAIRN_HOME is its `.cairn`): the machine's ~/.claude memory and skills, ~/.cairn settings and git config stay
 * out of the test. Without `modelUrl` no API key is set, so the offline demo model answers. `extraArgs` go after
 * the others (`--redis-url …` for a node of a distributed test), `env` adds variables (the nodes of one cluster share
 * `token`). `stop()` also removes the temporary HOME.
 */
export async function startCairn(options: {
  workspace: string;
  modelUrl?: string;
  port?: number;
  extraArgs?: readonly string[];
  token?: string;
  env?: Record<string, string>;
}): Promise<CairnProcess> {
  assertFreshBuild();
  const home = tempDir("cairn-e2e-home-");
  const cairnHome = join(home, ".cairn");
  const token = options.token ?? randomBytes(24).toString("hex");
  const env = hermeticEnv({ ...options.env, HOME: home, CAIRN_HOME: cairnHome, CAIRN_TOKEN: token, NEXT_TELEMETRY_DISABLED: "1" });
  if (options.modelUrl) {
    env.ANTHROPIC_BASE_URL = options.modelUrl;
    env.ANTHROPIC_API_KEY = "test";
  }
  const port = String(options.port ?? 0);
  const { started, match } = await startNode({
    name: "cairn serve",
    args: [
      join(repoRoot, "packages", "cli", "bin", "cairn.js"),
      "serve",
      "--host",
      "127.0.0.1",
      "--port",
      port,
      "--workspace",
      options.workspace,
      ...(options.extraArgs ?? []),
    ],
    cwd: repoRoot,
    env,
    ready: /Cairn is running at (http:\/\/cairn-[0-9a-f]{16}\.localhost:(\d+))\/\?token=(\S+)/,
    timeoutMs: 120_000,
  }).catch((error: unknown) => {
    rmSync(home, { recursive: true, force: true });
    throw error;
  });
  const url = match[1]!;
  return {
    ...started,
    stop: async () => {
      await started.stop();
      rmSync(home, { recursive: true, force: true });
    },
    url,
    loopbackUrl: `http://127.0.0.1:${match[2]!}`,
    loginUrl: `${url}/?token=${match[3]!}`,
    token,
    workspace: options.workspace,
    home,
    cairnHome,
  };
}

/** A `cairn worker --listen 127.0.0.1:<port>` host (its own process group) serving the workspaces under `root`. */
export type WorkerProcess = Started & { url: string; port: number };

/**
 * `cairn worker` on 127.0.0.1, on a free port or `port` (the same port again for a restart), with `token` as
 * CAIRN_WORKER_TOKEN and a temporary HOME of its own, removed by `stop()`.
 */
export async function startCairnWorker(options: { root: string; token: string; port?: number }): Promise<WorkerProcess> {
  const home = tempDir("cairn-e2e-worker-home-");
  const port = options.port ?? (await freePort());
  const { started } = await startNode({
    name: "cairn worker",
    args: [join(repoRoot, "packages", "cli", "bin", "cairn.js"), "worker", "--listen", `127.0.0.1:${port}`, "--root", options.root],
    cwd: home,
    env: hermeticEnv({ HOME: home, CAIRN_HOME: join(home, ".cairn"), CAIRN_WORKER_TOKEN: options.token }),
    ready: /listening on ws:\/\//,
    timeoutMs: 60_000,
  }).catch((error: unknown) => {
    rmSync(home, { recursive: true, force: true });
    throw error;
  });
  return {
    ...started,
    stop: async () => {
      await started.stop();
      rmSync(home, { recursive: true, force: true });
    },
    url: `ws://127.0.0.1:${port}`,
    port,
  };
}

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The environment of a server under test: PATH and the test's own settings, nothing of the machine's user (HOME,
 * XDG folders, CAIRN_* and ANTHROPIC_* variables) that could change what the server reads or which model answers.
 */
function hermeticEnv(own: Record<string, string>): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(([name]) => !/^(HOME|XDG_.*|CAIRN_.*|ANTHROPIC_.*|CLAUDE_.*)$/.test(name));
  return { ...Object.fromEntries(kept), ...own };
}

/**
 * The e2e tests run against a production build (`next build` in apps/web). A build older than the sources
 * would test yesterday's page (STACK.md P8), so refuse it with the command that fixes it.
 */
function assertFreshBuild(): void {
  const buildId = join(webDir, ".next", "BUILD_ID");
  if (!existsSync(buildId)) throw new Error(`apps/web is not built: run \`npm run build -w @cairn/web\` (next build) first`);
  const built = statSync(buildId).mtimeMs;
  const newest = newestMtime([join(webDir, "app"), join(webDir, "src")]);
  if (newest.mtimeMs > built) {
    throw new Error(`apps/web/.next is older than ${newest.path}: run \`npm run build -w @cairn/web\` (next build) again`);
  }
}

function newestMtime(dirs: string[]): { path: string; mtimeMs: number } {
  let newest = { path: "", mtimeMs: 0 };
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (!entry.name.endsWith(".test.ts")) {
        const mtimeMs = statSync(path).mtimeMs;
        if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
      }
    }
  };
  for (const dir of dirs) if (existsSync(dir)) visit(dir);
  return newest;
}
