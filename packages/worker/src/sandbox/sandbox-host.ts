import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, sep } from "node:path";
import type { SandboxManager as SandboxManagerType } from "@anthropic-ai/sandbox-runtime";
import { WorkspaceError } from "@cairn/core/workspace";
import { WorkspacePlaceholders } from "./placeholders.ts";
import { placeholdersNeeded, writeDenialsNow } from "./policy.ts";

type Manager = typeof SandboxManagerType;
let loading: Promise<Manager> | undefined;
let loaded: Manager | undefined;

/** The runtime (and its proxy and certificate code) loads when a sandbox is first probed or used, not at start-up. */
function sandboxManager(): Promise<Manager> {
  loading ??= import("@anthropic-ai/sandbox-runtime").then((module) => (loaded = module.SandboxManager));
  return loading;
}

/** For the calls that come after `acquire` or `wrap`, which loaded it. */
function loadedManager(): Manager {
  if (!loaded) throw new WorkspaceError("sandbox_unavailable", "The sandbox runtime is not loaded: acquire the sandbox first");
  return loaded;
}

export type SandboxProbe = { available: boolean; reason?: string };

/** What one sandboxed shell may touch; every path absolute. */
export type SandboxFilesystemPolicy = {
  denyRead: string[];
  allowRead: string[];
  allowWrite: string[];
  /** Protected paths, present or not: `placeholdersNeeded` and `writeDenialsNow` decide at each start how each is denied. */
  denyWrite: string[];
  /** Whether every absent protected name in a root gets a stand-in directory, not only `.claude` (see `placeholdersNeeded`). */
  protectMissing?: boolean;
};

/** A command line that runs a command in the sandbox (spawn it with `/bin/sh -c`), and what to call once it has exited. */
export type WrappedCommand = { command: string; ended: () => Promise<void> };

const disableHint = 'or set "sandbox": { "enabled": false } in the settings to run commands without a sandbox';

/**
 * The process's one connection to `@anthropic-ai/sandbox-runtime`, whose SandboxManager is itself a
 * process-wide singleton (one proxy, one configuration). Shells lease it; the last release resets it.
 * Filesystem rules are per command; allowed domains are registered per shell; "allow all network"
 * is decided when the manager starts, so one process cannot mix shells that allow it with shells that do not.
 */
export class SandboxHost {
  private leases = 0;
  private allowAllNetwork: boolean | undefined;
  private started: Promise<void> | undefined;
  private resetting: Promise<void> = Promise.resolve();
  private probed: Promise<SandboxProbe> | undefined;
  /** Wraps running from a neutral directory, and the working directory to go back to after them. */
  private wrapsAway = 0;
  private workingDirectory = "/";
  private placeholders: WorkspacePlaceholders | undefined;

  private workspacePlaceholders(): WorkspacePlaceholders {
    this.placeholders ??= new WorkspacePlaceholders(placeholderStateDirectory());
    return this.placeholders;
  }

  /** Whether sandboxes can run here; on Linux, the first probe also removes placeholders a killed process left behind. */
  probe(): Promise<SandboxProbe> {
    this.probed ??= probeSandboxOnce().then(async (probe) => {
      if (probe.available && process.platform === "linux")
        await this.workspacePlaceholders()
          .sweep()
          .catch(() => undefined);
      return probe;
    });
    return this.probed;
  }

  /** The placeholder directories among these paths, which workspace listings leave out (see WorkspacePlaceholders). */
  placeholdersAmong(paths: readonly string[]): Set<string> {
    return process.platform === "linux" ? this.workspacePlaceholders().placeholdersAmong(paths) : new Set();
  }

  /** Starts the sandbox runtime if needed; the returned function releases this lease. */
  async acquire(allowAllNetwork: boolean): Promise<() => Promise<void>> {
    const probe = await this.probe();
    if (!probe.available) throw new WorkspaceError("sandbox_unavailable", probe.reason ?? "The sandbox is unavailable");
    if (this.leases > 0 && this.allowAllNetwork !== allowAllNetwork) {
      throw new WorkspaceError(
        "sandbox_unavailable",
        `This process already runs sandboxed shells ${this.allowAllNetwork === true ? "with" : "without"} open network access; ` +
          "workspaces with a different sandbox.allowNetwork need their own worker process (createWorkerProcessWorkspace).",
      );
    }
    this.leases += 1;
    this.allowAllNetwork = allowAllNetwork;
    try {
      await this.resetting;
      const SandboxManager = await sandboxManager();
      this.started ??= SandboxManager.initialize(
        { network: { allowedDomains: [], deniedDomains: [] }, filesystem: { denyRead: [], allowWrite: [], denyWrite: [] } },
        async () => allowAllNetwork,
      );
      await this.started;
    } catch (error) {
      this.leases -= 1;
      this.started = undefined;
      const reason = error instanceof Error ? error.message : String(error);
      throw new WorkspaceError(
        "sandbox_unavailable",
        `The sandbox could not start: ${reason}. Install bubblewrap and socat (apt-get install bubblewrap socat), ${disableHint}.`,
        { cause: error },
      );
    }
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      this.leases -= 1;
      if (this.leases > 0) return;
      const started = this.started;
      this.started = undefined;
      this.allowAllNetwork = undefined;
      this.resetting = (async () => {
        await started?.catch(() => undefined);
        await loadedManager().reset();
      })().catch(() => undefined);
      await this.resetting;
    };
  }

  /**
   * The command line that runs `command` under the policy. Protected names absent from a workspace
   * root get their placeholder directories first (held until `ended`), so bubblewrap mounts over
   * them and makes nothing itself.
   */
  async wrap(command: string, policy: SandboxFilesystemPolicy, commandId: string): Promise<WrappedCommand> {
    // bubblewrap mounts on entries; macOS Seatbelt denies by path and needs no placeholder.
    const mountsOnEntries = process.platform === "linux";
    const lease = mountsOnEntries ? await this.workspacePlaceholders().hold(placeholdersNeeded(policy)) : { release: async () => undefined };
    try {
      const SandboxManager = await sandboxManager();
      const filesystem = {
        denyRead: mountsOnEntries ? [...policy.denyRead, placeholderStateDirectory()] : policy.denyRead,
        allowRead: [...policy.allowRead, ...this.proxySockets()],
        allowWrite: policy.allowWrite,
        denyWrite: writeDenialsNow(policy, mountsOnEntries),
      };
      const wrapped = await this.awayFromWritableDirectories(policy.allowWrite, () =>
        SandboxManager.wrapWithSandbox(command, undefined, { filesystem }, undefined, { commandId }),
      );
      let ended: Promise<void> | undefined;
      const end = () => {
        // The runtime's count of running commands (a wrap that threw is not in it).
        ended ??= (async () => {
          loaded?.cleanupAfterCommand();
          await lease.release();
        })();
        return ended;
      };
      return { command: wrapped, ended: end };
    } catch (error) {
      await lease.release();
      if (error instanceof WorkspaceError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new WorkspaceError("sandbox_unavailable", `The sandbox could not wrap the shell: ${reason}`, { cause: error });
    }
  }

  /**
   * The runtime also denies writes to the shell and tool files of this process's working directory,
   * putting an empty file in place of each that is absent. When that directory is writable for the
   * shell (a worker process runs in its workspace; `cairn -p` runs in the project), the wrap is made
   * from the runtime's own read-only directory instead, so nothing is created in the workspace.
   */
  private async awayFromWritableDirectories<T>(writable: readonly string[], wrap: () => Promise<T>): Promise<T> {
    const cwd = process.cwd();
    if (this.wrapsAway === 0 && !writable.some((directory) => cwd === directory || cwd.startsWith(directory + sep))) return wrap();
    if (this.wrapsAway === 0) {
      this.workingDirectory = cwd;
      process.chdir(sandboxRuntimeVendorDirectory() ?? "/");
    }
    this.wrapsAway += 1;
    try {
      return await wrap();
    } finally {
      this.wrapsAway -= 1;
      if (this.wrapsAway === 0) process.chdir(this.workingDirectory);
    }
  }

  registerAllowedDomains(commandId: string, allowedDomains: readonly string[]): void {
    if (allowedDomains.length > 0) loadedManager().registerCommandNetworkLists(commandId, { allowedDomains: [...allowedDomains] });
  }

  unregisterAllowedDomains(commandId: string): void {
    loaded?.unregisterCommandNetworkLists(commandId);
  }

  /** The proxy's Unix sockets live in the host's temp dir, which a read deny may hide; they must stay reachable. */
  private proxySockets(): string[] {
    const manager = loadedManager();
    return [manager.getLinuxHttpSocketPath(), manager.getLinuxSocksSocketPath()].filter((path): path is string => path !== undefined);
  }
}

/**
 * Per user, and the same for all of the user's Cairn processes whatever their TMPDIR (leases kept in
 * two places would let one process remove what another's sandbox holds). Linux only, where /tmp is
 * always there; every sandbox hides it (see `wrap`).
 */
function placeholderStateDirectory(): string {
  return `/tmp/cairn-sandbox-placeholders-${process.getuid?.() ?? "user"}`;
}

/** One per process, because the library's SandboxManager is one per process. */
export const processSandboxHost = new SandboxHost();

/** The directory holding the runtime's seccomp helper, which must stay readable inside the sandbox. */
export function sandboxRuntimeVendorDirectory(): string | undefined {
  try {
    const entry = createRequire(import.meta.url).resolve("@anthropic-ai/sandbox-runtime");
    const vendor = join(dirname(dirname(entry)), "vendor", "seccomp");
    return existsSync(vendor) ? vendor : undefined;
  } catch {
    return undefined;
  }
}

async function probeSandboxOnce(): Promise<SandboxProbe> {
  if (process.platform !== "linux" && process.platform !== "darwin") {
    return { available: false, reason: `Sandboxing is not supported on ${process.platform}; ${disableHint}.` };
  }
  const SandboxManager = await sandboxManager();
  if (!SandboxManager.isSupportedPlatform()) return { available: false, reason: `Sandboxing is not supported on this platform; ${disableHint}.` };
  const dependencies = await SandboxManager.checkDependenciesAsync();
  if (dependencies.errors.length > 0) {
    return {
      available: false,
      reason: `The sandbox needs programs that are missing (${dependencies.errors.join("; ")}). Install them with "apt-get install bubblewrap socat ripgrep", ${disableHint}.`,
    };
  }
  if (process.platform !== "linux") return { available: true };
  const vendor = sandboxRuntimeVendorDirectory();
  const helper = vendor === undefined ? undefined : join(vendor, process.arch === "arm64" ? "arm64" : "x64", "apply-seccomp");
  const command = helper !== undefined && existsSync(helper) ? [helper, "/bin/true"] : ["/bin/true"];
  const result = await runQuietly("bwrap", [
    "--new-session",
    "--die-with-parent",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--unshare-pid",
    "--unshare-user",
    "--unshare-net",
    "--cap-drop",
    "ALL",
    "--cap-add",
    "CAP_SETFCAP",
    "--proc",
    "/proc",
    "--",
    ...command,
  ]);
  if (result.ok) return { available: true };
  return {
    available: false,
    reason:
      `bubblewrap cannot create a sandbox on this machine (${result.detail}). It needs user namespaces: allow them ` +
      "(sysctl -w kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; " +
      `in a container, run it with a seccomp/AppArmor profile that permits unshare and mount), ${disableHint}.`,
  };
}

function runQuietly(command: string, args: string[]): Promise<{ ok: boolean; detail: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"], env: { PATH: "/usr/local/bin:/usr/bin:/bin" } });
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ ok: false, detail: error.message });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, detail: stderr.trim() || (signal === null ? `exit status ${code}` : `killed by ${signal}`) });
    });
  });
}
