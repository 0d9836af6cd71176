import { chmod, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { WorkspaceError } from "@cairn/core/workspace";
import type { ExecOptions, Workspace } from "@cairn/core/workspace";
import { readWorkerEnv, type WorkerEnv } from "./env.ts";
import { BackgroundJobs } from "./exec/background-jobs.ts";
import { SandboxedLauncher, UnsandboxedLauncher, shellQuote, type ShellLauncher } from "./exec/shell-launcher.ts";
import { ShellSession } from "./exec/shell-session.ts";
import { PathConfiner } from "./fs/confine.ts";
import { FileOps } from "./fs/file-ops.ts";
import { makePrivateDirectory } from "./process/private-directories.ts";
import { watchTree } from "./fs/watch-tree.ts";
import { createWorkspaceGit, type GitRepository } from "./git/git-repository.ts";
import { buildFilesystemPolicy } from "./sandbox/policy.ts";
import { processSandboxHost, sandboxRuntimeVendorDirectory, type SandboxProbe } from "./sandbox/sandbox-host.ts";
import { globWorkspace } from "./search/glob.ts";
import { grepWorkspace } from "./search/grep.ts";
import { findRipgrep } from "./search/ripgrep.ts";
import { localWorkspaceOptionsSchema, type LocalWorkspaceOptions } from "./settings.ts";
import { createPtyTerminals } from "./terminal/pty-terminals.ts";
import type { WorkspaceTerminals } from "./terminal/terminal-port.ts";

/** Whether bubblewrap sandboxes can run here, with a plain reason and fix when not. Cached per process. */
export function probeSandbox(): Promise<SandboxProbe> {
  return processSandboxHost.probe();
}

/** A workspace as the worker serves it: the engine's port, plus the workspace's git repository and the web terminal's shells. */
export type WorkerWorkspace = Workspace & { readonly git: GitRepository; readonly terminals: WorkspaceTerminals };

/** A Workspace over a local directory: confined file access, ripgrep search, persistent (sandboxed) shells, git. */
export async function createLocalWorkspace(options: LocalWorkspaceOptions, workerEnv: WorkerEnv = readWorkerEnv()): Promise<WorkerWorkspace> {
  const settings = localWorkspaceOptionsSchema.parse(options);
  const confiner = await PathConfiner.create(settings.root, settings.additionalDirectories);
  // The sandbox's placeholders for absent protected names are no one's files: listings leave them out.
  const files = new FileOps(confiner, (paths) => processSandboxHost.placeholdersAmong(paths));
  const ripgrep = settings.forceJsSearch === true ? undefined : await findRipgrep(workerEnv.path);

  const privateDirectory = await makePrivateDirectory(settings.temporaryDirectory ?? workerEnv.tmpDir, "cairn-ws");
  await chmod(privateDirectory, 0o700);
  const home = join(privateDirectory, "home");
  const temporary = join(privateDirectory, "tmp");
  const runDirectory = join(privateDirectory, "run");
  await Promise.all([home, temporary, runDirectory].map((directory) => mkdir(directory, { mode: 0o700 })));

  // Nothing of the server's own environment reaches the shell but these.
  const shellEnv: Record<string, string> = {
    PATH: workerEnv.path,
    HOME: home,
    LANG: workerEnv.lang,
    TERM: workerEnv.term,
    TMPDIR: temporary,
    ...settings.env,
  };
  // The sandbox runtime sets TMPDIR itself; the prelude puts ours back.
  const prelude = `export TMPDIR=${shellQuote(shellEnv.TMPDIR ?? temporary)} HOME=${shellQuote(shellEnv.HOME ?? home)}`;
  const sandbox = settings.sandbox;
  const launcher: ShellLauncher = sandbox.enabled
    ? new SandboxedLauncher({
        host: processSandboxHost,
        env: shellEnv,
        allowAllNetwork: sandbox.allowNetwork ?? false,
        allowedDomains: sandbox.allowedDomains ?? [],
        policy: buildFilesystemPolicy({
          roots: confiner.roots,
          privateReadable: [runDirectory],
          privateWritable: [home, temporary],
          serverHome: workerEnv.home,
          cairnHome: settings.cairnHome ?? workerEnv.cairnHome,
          // The host's temp dir holds other workspaces' private directories.
          denyRead: [workerEnv.tmpDir, ...(sandbox.denyRead ?? [])],
          runtimeReadable: [sandboxRuntimeVendorDirectory()].filter((path): path is string => path !== undefined),
          protectMissing: sandbox.protectMissingFiles === true,
          gitDirectories: settings.gitDirectories ?? [],
        }),
      })
    : new UnsandboxedLauncher(shellEnv);

  const sessions = new Map<string, ShellSession>();
  const background = new BackgroundJobs(launcher);
  const terminals = createPtyTerminals(settings, workerEnv);
  let disposed = false;
  const live = () => {
    if (disposed) throw new WorkspaceError("worker_unavailable", `The workspace ${confiner.root} was disposed`);
  };
  const session = (shellId: string) => {
    let shell = sessions.get(shellId);
    if (shell === undefined) {
      shell = new ShellSession({ launcher, root: confiner.root, runDirectory, prelude, isInsideWorkspace: (directory) => confiner.contains(directory) });
      sessions.set(shellId, shell);
    }
    return shell;
  };

  return {
    root: confiner.root,
    resolve: (path) => confiner.resolve(path),
    stat: (path) => files.stat(path),
    readFile: (path, readOptions) => files.readFile(path, readOptions?.signal),
    writeFile: (path, data, writeOptions) => files.writeFile(path, data, writeOptions?.signal),
    list: (path) => files.list(path),
    mkdir: (path) => files.mkdir(path),
    remove: (path) => files.remove(path),
    rename: (from, to) => files.rename(from, to),
    glob: (pattern, globOptions) => globWorkspace(confiner, ripgrep, pattern, globOptions),
    grep: (query, grepOptions) => grepWorkspace(confiner, ripgrep, query, grepOptions?.signal),
    exec(command: string, execOptions: ExecOptions) {
      live();
      return session(execOptions.shellId).exec(command, execOptions);
    },
    startBackground(command, backgroundOptions) {
      live();
      return background.start(command, session(backgroundOptions.shellId).currentDirectory, prelude);
    },
    readBackground: async (id) => background.read(id),
    killBackground: (id) => background.kill(id),
    git: createWorkspaceGit(confiner.root, workerEnv),
    terminals,
    watch: (listener, signal) => watchTree(confiner.root, listener, signal),
    async dispose() {
      if (disposed) return;
      disposed = true;
      await Promise.all([...sessions.values()].map((shell) => shell.dispose()));
      sessions.clear();
      await Promise.all([background.dispose(), terminals.closeAll()]);
      await rm(privateDirectory, { recursive: true, force: true });
    },
  };
}
