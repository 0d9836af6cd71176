import { randomBytes } from "node:crypto";
import { chmod, mkdir, realpath, rm } from "node:fs/promises";
import { dirname, isAbsolute, join, sep } from "node:path";
import { z } from "zod";
import { WorkspaceError } from "@cairn/core/workspace";
import { readWorkerEnv, type WorkerEnv } from "../env.ts";
import { shellQuote } from "../exec/shell-launcher.ts";
import { PathConfiner } from "../fs/confine.ts";
import { makePrivateDirectory } from "../process/private-directories.ts";
import { sandboxSettingsSchema } from "../settings.ts";
import { buildFilesystemPolicy } from "./policy.ts";
import { processSandboxHost, sandboxRuntimeVendorDirectory } from "./sandbox-host.ts";

// Built at the first sandboxed command (z.lazy): `cairn -p` loads this module with its workspace at every start, and
// most runs start no MCP server.
export const sandboxedCommandOptionsSchema = z.lazy(() =>
  z.strictObject({
    /** The program and its arguments, run as they are (no shell parsing). */
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    /** The workspace: the command may write here (and in its private directory) only. */
    root: z.string().min(1),
    additionalDirectories: z.array(z.string().min(1)).optional(),
    /** Working directory; must lie inside a workspace directory. Default: the root. */
    cwd: z.string().min(1).optional(),
    /** Variables laid over the scrubbed base (PATH, HOME, LANG, TERM, TMPDIR). */
    env: z.record(z.string(), z.string()).optional(),
    /** Network and extra read denies, as in the `sandbox` settings (`enabled` is not consulted: this always sandboxes). */
    policy: sandboxSettingsSchema.omit({ enabled: true }).optional(),
    /** Hidden from the command, like the server's home. Defaults to $CAIRN_HOME or ~/.cairn. */
    cairnHome: z.string().min(1).optional(),
    /** Where the private directory (HOME and TMPDIR) is made. Defaults to the OS temp dir. */
    temporaryDirectory: z.string().min(1).optional(),
    /** A word for the private directory's name (e.g. the MCP server's name). */
    label: z.string().optional(),
  }),
);
export type SandboxedCommandOptions = z.input<typeof sandboxedCommandOptionsSchema>;

/** A command ready to spawn (`spawn(command, args, { cwd, env })`, stdio as you like) inside the sandbox. */
export type SandboxedCommand = {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The command's private HOME and TMPDIR, removed by `dispose`. */
  home: string;
  tmpDir: string;
  /** Call once the process has exited (or never started): frees the sandbox lease, network registration and private directory. Idempotent. */
  dispose(): Promise<void>;
};

/**
 * Wraps an arbitrary long-running command (an MCP server, a language server) in the same sandbox as
 * the agent's Bash: writes only to the workspace directories and a private HOME/TMPDIR made for this
 * command, reads everywhere but the server's home, `$CAIRN_HOME`, the directory holding the workspace,
 * the host's temp dir and `policy.denyRead`, network only through the sandbox's proxy to the allowed
 * hosts (or anywhere with `allowNetwork`), and a scrubbed environment. Throws
 * `WorkspaceError("sandbox_unavailable")` when the sandbox cannot run here; it never falls back.
 */
export async function createSandboxedCommand(options: SandboxedCommandOptions, workerEnv: WorkerEnv = readWorkerEnv()): Promise<SandboxedCommand> {
  const settings = sandboxedCommandOptionsSchema.parse(options);
  const confiner = await PathConfiner.create(settings.root, settings.additionalDirectories);
  const cwd = settings.cwd === undefined ? confiner.root : await realpath(settings.cwd);
  if (!confiner.roots.some((root) => cwd === root || cwd.startsWith(root + sep))) {
    throw new WorkspaceError("outside_workspace", `The working directory ${settings.cwd ?? cwd} is outside the workspace`, { path: settings.cwd ?? cwd });
  }
  const privateDirectory = await makePrivateDirectory(settings.temporaryDirectory ?? workerEnv.tmpDir, "cairn-cmd", settings.label);
  const removePrivate = () => rm(privateDirectory, { recursive: true, force: true });
  const home = join(privateDirectory, "home");
  const tmpDir = join(privateDirectory, "tmp");
  const host = processSandboxHost;
  const policy = settings.policy ?? {};
  const commandId = randomBytes(16).toString("base64url");
  let releaseLease: (() => Promise<void>) | undefined;
  try {
    await chmod(privateDirectory, 0o700);
    await Promise.all([home, tmpDir].map((directory) => mkdir(directory, { mode: 0o700 })));
    releaseLease = await host.acquire(policy.allowNetwork ?? false);
    host.registerAllowedDomains(commandId, policy.allowedDomains ?? []);
    const filesystem = buildFilesystemPolicy({
      roots: confiner.roots,
      privateReadable: await programFilesInTemp([settings.command, ...(settings.args ?? []).slice(0, 1)], workerEnv.tmpDir),
      privateWritable: [home, tmpDir],
      serverHome: workerEnv.home,
      cairnHome: settings.cairnHome ?? workerEnv.cairnHome,
      denyRead: [workerEnv.tmpDir, ...(policy.denyRead ?? [])],
      runtimeReadable: [sandboxRuntimeVendorDirectory()].filter((path): path is string => path !== undefined),
      protectMissing: policy.protectMissingFiles === true,
    });
    const argv = [settings.command, ...(settings.args ?? [])].map(shellQuote).join(" ");
    // The sandbox runtime sets TMPDIR itself; put the private one back, then become the command.
    const wrapped = await host.wrap(`export TMPDIR=${shellQuote(tmpDir)} HOME=${shellQuote(home)}; exec ${argv}`, filesystem, commandId);
    const lease = releaseLease;
    let disposed: Promise<void> | undefined;
    return {
      // bash execs the lone bwrap command, so the spawned process is the sandbox: killing it ends everything inside.
      command: "/bin/bash",
      args: ["--noprofile", "--norc", "-c", wrapped.command],
      env: { PATH: workerEnv.path, HOME: home, LANG: workerEnv.lang, TERM: workerEnv.term, TMPDIR: tmpDir, ...settings.env },
      cwd,
      home,
      tmpDir,
      dispose() {
        disposed ??= (async () => {
          host.unregisterAllowedDomains(commandId);
          await wrapped.ended();
          await lease();
          await removePrivate();
        })();
        return disposed;
      },
    };
  } catch (error) {
    host.unregisterAllowedDomains(commandId);
    await releaseLease?.();
    await removePrivate();
    if (error instanceof WorkspaceError) throw error;
    throw new WorkspaceError("sandbox_unavailable", `The sandboxed command could not start: ${String(error)}`, { cause: error });
  }
}

/**
 * The sandbox hides the host's temp dir, so a program installed or checked out there (a clone in
 * /tmp running `node /tmp/x/node_modules/pkg/index.js`) could not even be read. For the command and
 * its first argument, when they are files in the temp dir, their package tree is made readable (not
 * writable): the outermost `node_modules` holding them, or else their own directory (the file alone
 * when it lies right in the temp dir). Paths anywhere
 * else keep the policy as it is: this reopens nothing outside the temp dir.
 */
export async function programFilesInTemp(candidates: readonly string[], tmpDir: string): Promise<string[]> {
  const temp = await realpath(tmpDir).catch(() => tmpDir);
  const readable: string[] = [];
  for (const candidate of candidates) {
    if (!isAbsolute(candidate)) continue;
    const file = await realpath(candidate).catch(() => undefined);
    if (file === undefined || !file.startsWith(temp + sep)) continue;
    const parts = file.slice(temp.length + 1).split(sep);
    const outermost = parts.indexOf("node_modules");
    if (outermost >= 0) readable.push(join(temp, ...parts.slice(0, outermost + 1)));
    // A file right in the temp dir: that file alone, not the whole temp dir.
    else readable.push(dirname(file) === temp ? file : dirname(file));
  }
  return [...new Set(readable)];
}
