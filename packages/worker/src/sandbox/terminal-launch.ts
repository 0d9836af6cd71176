import { chmod, mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { WorkspaceError } from "@cairn/core/workspace";
import { readWorkerEnv, type WorkerEnv } from "../env.ts";
import { shellQuote } from "../exec/shell-launcher.ts";
import { PathConfiner } from "../fs/confine.ts";
import { makePrivateDirectory } from "../process/private-directories.ts";
import { localWorkspaceOptionsSchema, type LocalWorkspaceOptions } from "../settings.ts";
import { buildFilesystemPolicy } from "./policy.ts";
import { processSandboxHost, sandboxRuntimeVendorDirectory } from "./sandbox-host.ts";

/** The directory's name and `$` (`#` for root), as a terminal in an editor shows, instead of bash's `bash-5.2$`. */
const PROMPT = "\\W \\$ ";

/** How to start an interactive shell for a terminal: spawn `file args` in a pty with `env` in `cwd`. */
export type TerminalLaunch = {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  sandboxed: boolean;
  /** The shell runs on a pty of its own inside the sandbox (under `script`), which learns of a resize by SIGWINCH. */
  innerPty: boolean;
  /** Frees the sandbox lease and the shell's private directory; call once the shell has exited. */
  release: () => Promise<void>;
};

/**
 * An interactive bash for the web terminal, confined exactly like the agent's Bash (same policy:
 * writes to the workspace and a private temp directory only, the same network rules) with the same
 * scrubbed environment. The caller owns the pty; bubblewrap comes from the sandbox runtime's wrap.
 */
export async function prepareTerminalLaunch(
  options: LocalWorkspaceOptions,
  launchOptions: { cwd?: string | undefined; workerEnv?: WorkerEnv } = {},
): Promise<TerminalLaunch> {
  const settings = localWorkspaceOptionsSchema.parse(options);
  const workerEnv = launchOptions.workerEnv ?? readWorkerEnv();
  const confiner = await PathConfiner.create(settings.root, settings.additionalDirectories);
  const cwd = launchOptions.cwd === undefined ? confiner.root : await confiner.resolve(launchOptions.cwd);
  if (!(await stat(cwd)).isDirectory()) throw new WorkspaceError("not_directory", `${launchOptions.cwd ?? cwd} is not a directory`, { path: cwd });
  const privateDirectory = await makePrivateDirectory(settings.temporaryDirectory ?? workerEnv.tmpDir, "cairn-term");
  await chmod(privateDirectory, 0o700);
  const home = join(privateDirectory, "home");
  const temporary = join(privateDirectory, "tmp");
  await Promise.all([home, temporary].map((directory) => mkdir(directory, { mode: 0o700 })));
  const removePrivate = () => rm(privateDirectory, { recursive: true, force: true });

  const env: Record<string, string> = {
    PATH: workerEnv.path,
    HOME: home,
    LANG: workerEnv.lang,
    TERM: "xterm-256color",
    TMPDIR: temporary,
    PS1: PROMPT,
    ...settings.env,
  };
  // The sandbox runtime sets TMPDIR itself and does not pass PS1 on; put ours back before the interactive shell starts.
  const exports = `export TMPDIR=${shellQuote(temporary)} HOME=${shellQuote(home)} PS1=${shellQuote(env.PS1 ?? PROMPT)}`;
  const sandbox = settings.sandbox;
  if (!sandbox.enabled) {
    const interactive = `${exports}; exec bash --noprofile --norc -i`;
    return { file: "/bin/bash", args: ["--noprofile", "--norc", "-c", interactive], env, cwd, sandboxed: false, innerPty: false, release: removePrivate };
  }
  // bubblewrap starts the sandbox in a new session (so nothing inside can push keystrokes into the server's
  // terminal), which leaves bash without a controlling terminal: no job control, and Ctrl-C reaching nothing.
  // util-linux's script gives it a pty of its own inside the sandbox; the outer pty is only its transport.
  const interactive = `${exports}; command -v script >/dev/null && exec script -qfec 'bash --noprofile --norc -i' /dev/null; exec bash --noprofile --norc -i`;

  const host = processSandboxHost;
  let releaseLease: (() => Promise<void>) | undefined;
  const commandId = randomBytes(16).toString("base64url");
  try {
    releaseLease = await host.acquire(sandbox.allowNetwork ?? false);
    host.registerAllowedDomains(commandId, sandbox.allowedDomains ?? []);
    const policy = buildFilesystemPolicy({
      roots: confiner.roots,
      // No command files: nothing private is read-only; the shell writes only its HOME and TMPDIR.
      privateReadable: [],
      privateWritable: [home, temporary],
      serverHome: workerEnv.home,
      cairnHome: settings.cairnHome ?? workerEnv.cairnHome,
      denyRead: [workerEnv.tmpDir, ...(sandbox.denyRead ?? [])],
      runtimeReadable: [sandboxRuntimeVendorDirectory()].filter((path): path is string => path !== undefined),
      protectMissing: sandbox.protectMissingFiles === true,
      gitDirectories: settings.gitDirectories ?? [],
    });
    const wrapped = await host.wrap(interactive, policy, commandId);
    const lease = releaseLease;
    return {
      file: "/bin/bash",
      args: ["--noprofile", "--norc", "-c", wrapped.command],
      env,
      cwd,
      sandboxed: true,
      innerPty: true,
      release: async () => {
        host.unregisterAllowedDomains(commandId);
        await wrapped.ended();
        await lease();
        await removePrivate();
      },
    };
  } catch (error) {
    host.unregisterAllowedDomains(commandId);
    await releaseLease?.();
    await removePrivate();
    if (error instanceof WorkspaceError) throw error;
    throw new WorkspaceError("sandbox_unavailable", `The sandboxed terminal could not start: ${String(error)}`, { cause: error });
  }
}
