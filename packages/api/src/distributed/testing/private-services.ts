import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.ts";

const run = promisify(execFile);

/**
 * Private Redis and PostgreSQL servers for tests, from Debian's `redis-server` and `postgresql`
 * packages, each on a free port in its own temporary directory. Nothing outside the test is used or
 * left behind: `stop()` ends the server and removes its directory. `restart()` stops and starts it on
 * the same port and data (for reconnect tests).
 */
export type PrivateService = {
  url: string;
  port: number;
  /** Stops the server, keeping its data and port, then starts it again. */
  restart(options?: { downMs?: number }): Promise<void>;
  /** Stops the server for good and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
};

export class MissingServiceError extends Error {
  override readonly name = "MissingServiceError";
}

/** `redis-server` on a free port; `persistent` keeps an append-only file synced on every write, so a restart loses nothing. */
export async function startPrivateRedis(options: { persistent?: boolean } = {}): Promise<PrivateService> {
  const binary = "redis-server";
  const directory = await mkdtemp(join(tmpdir(), "cairn-redis-"));
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--dir", directory, "--protected-mode", "no"];
  args.push(...(options.persistent ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"]));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = await spawnUntil(binary, args, /Ready to accept connections/, "redis-server");
  };
  const halt = async () => {
    const running = child;
    child = undefined;
    if (running) await terminate(running);
  };
  await start().catch(async (error: unknown) => {
    await rm(directory, { recursive: true, force: true });
    throw error;
  });
  let stopped = false;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async restart(restartOptions = {}) {
      await halt();
      if (restartOptions.downMs) await new Promise((resolve) => setTimeout(resolve, restartOptions.downMs));
      await start();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await halt();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * PostgreSQL (`initdb` + `pg_ctl`) on a free port, trusting local connections for the role `cairn`.
 * `initdb` refuses to run as root, so as root the cluster belongs to the unprivileged `postgres` user.
 */
export async function startPrivatePostgres(): Promise<PrivateService> {
  const bin = postgresBinDir();
  const directory = await mkdtemp(join(tmpdir(), "cairn-pg-"));
  const data = join(directory, "data");
  const asRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const asOwner = (program: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, program), ...args]] : [join(bin, program), args];
  const port = await freePort();
  const pgCtl = (...args: string[]) => {
    const [command, commandArgs] = asOwner("pg_ctl", ["-D", data, ...args]);
    return run(command, commandArgs, { timeout: 60_000 });
  };
  const serverOptions = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () => pgCtl("-o", serverOptions, "-l", join(directory, "log"), "-w", "-t", "60", "start");
  try {
    if (asRoot) await chown(directory, ownerId("postgres"), groupId("postgres"));
    const [initCommand, initArgs] = asOwner("initdb", ["-D", data, "-A", "trust", "-U", "cairn", "-E", "UTF8", "--locale=C", "--no-sync"]);
    await run(initCommand, initArgs, { timeout: 60_000 });
    await start();
  } catch (error) {
    await pgCtl("-m", "immediate", "stop").catch(() => undefined);
    await rm(directory, { recursive: true, force: true });
    throw new Error(`could not start a private PostgreSQL: ${(error as Error).message}`, { cause: error });
  }
  let stopped = false;
  return {
    url: `postgres://cairn@127.0.0.1:${port}/postgres`,
    port,
    async restart(restartOptions = {}) {
      await pgCtl("-m", "fast", "-w", "stop");
      if (restartOptions.downMs) await new Promise((resolve) => setTimeout(resolve, restartOptions.downMs));
      await start();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await pgCtl("-m", "immediate", "-w", "stop").catch(() => undefined);
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The newest `/usr/lib/postgresql/<version>/bin` holding `initdb` (Debian's layout). */
function postgresBinDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, "bin", "initdb")))
        .sort((left, right) => Number(right) - Number(left))
    : [];
  const newest = versions[0];
  if (newest === undefined) throw new MissingServiceError("PostgreSQL is not installed (apt-get install postgresql)");
  return join(root, newest, "bin");
}

function ownerId(user: string): number {
  return idOf("passwd", user);
}

function groupId(user: string): number {
  return idOf("group", user);
}

/** A user's or group's numeric id from /etc/passwd or /etc/group. */
function idOf(database: "passwd" | "group", name: string): number {
  const text = readFileSync(`/etc/${database}`, "utf8");
  for (const line of text.split("\n")) {
    const fields = line.split(":");
    if (fields[0] === name && fields[2] !== undefined) return Number(fields[2]);
  }
  throw new MissingServiceError(`no ${database === "passwd" ? "user" : "group"} "${name}" (the postgresql package creates it)`);
}

/** Spawns a server in the foreground and resolves once its output matches `ready`. */
function spawnUntil(command: string, args: string[], ready: RegExp, label: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    let output = "";
    let child: ChildProcess;
    try {
      child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    } catch (error) {
      reject(error);
      return;
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${label} did not start within 20 s:\n${output.slice(-2000)}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (ready.test(output)) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(child);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(error.code === "ENOENT" ? new MissingServiceError(`${command} is not installed (apt-get install redis-server)`) : error);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with code ${code} before it was ready:\n${output.slice(-2000)}`));
    });
  });
}

/** SIGTERM, then SIGKILL after 5 s; resolves when the process is gone. */
function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
