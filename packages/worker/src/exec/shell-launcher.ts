import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import { WorkspaceError } from "@cairn/core/workspace";
import type { SandboxFilesystemPolicy, SandboxHost } from "../sandbox/sandbox-host.ts";

export type LaunchedShell = {
  child: ChildProcessWithoutNullStreams;
  /** Frees what the launch holds (the sandbox lease); call once the child has exited. */
  release: () => Promise<void>;
};

export type LaunchRequest = {
  cwd: string;
  /** Shell lines run before anything else (exports, cd). */
  prelude: string;
  /** A script for `bash -c`; without one, a persistent bash reads commands from stdin. */
  script?: string;
};

/** Starts bash processes, inside the sandbox or not. Each child leads its own process group. */
export interface ShellLauncher {
  readonly sandboxed: boolean;
  launch(request: LaunchRequest): Promise<LaunchedShell>;
}

export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function bashCommand(request: LaunchRequest): string {
  if (request.script === undefined) return "exec bash --noprofile --norc";
  return `exec bash --noprofile --norc -c ${shellQuote(`${request.prelude}\n${request.script}`)}`;
}

function spawnGroupLeader(command: string, args: string[], cwd: string, env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(command, args, { cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
}

export class UnsandboxedLauncher implements ShellLauncher {
  readonly sandboxed = false;
  private readonly env: Record<string, string>;

  constructor(env: Record<string, string>) {
    this.env = env;
  }

  async launch(request: LaunchRequest): Promise<LaunchedShell> {
    const child = spawnGroupLeader("/bin/bash", ["--noprofile", "--norc", "-c", bashCommand(request)], request.cwd, this.env);
    return { child, release: async () => undefined };
  }
}

export type SandboxedLauncherOptions = {
  host: SandboxHost;
  env: Record<string, string>;
  policy: SandboxFilesystemPolicy;
  allowAllNetwork: boolean;
  allowedDomains: readonly string[];
};

export class SandboxedLauncher implements ShellLauncher {
  readonly sandboxed = true;
  private readonly options: SandboxedLauncherOptions;

  constructor(options: SandboxedLauncherOptions) {
    this.options = options;
  }

  async launch(request: LaunchRequest): Promise<LaunchedShell> {
    const { host, policy, env } = this.options;
    const release = await host.acquire(this.options.allowAllNetwork);
    // Unguessable: the proxy ties a connection to this shell's allow list by it.
    const commandId = randomBytes(16).toString("base64url");
    try {
      host.registerAllowedDomains(commandId, this.options.allowedDomains);
      const wrapped = await host.wrap(bashCommand(request), policy, commandId);
      // bash -c execs a lone simple command, so bwrap is the group leader and a child of this process:
      // its --die-with-parent then takes the sandbox down if this process dies.
      let child: ChildProcessWithoutNullStreams;
      try {
        child = spawnGroupLeader("/bin/bash", ["--noprofile", "--norc", "-c", wrapped.command], request.cwd, env);
      } catch (error) {
        await wrapped.ended();
        throw error;
      }
      return {
        child,
        release: async () => {
          host.unregisterAllowedDomains(commandId);
          await wrapped.ended();
          await release();
        },
      };
    } catch (error) {
      host.unregisterAllowedDomains(commandId);
      await release();
      if (error instanceof WorkspaceError) throw error;
      throw new WorkspaceError("sandbox_unavailable", `The sandboxed shell could not start: ${String(error)}`, { cause: error });
    }
  }
}

/** Kills a launched process group; harmless if it is gone already. */
export function killGroup(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals = "SIGKILL"): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}
