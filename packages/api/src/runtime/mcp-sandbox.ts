import { WorkspaceError } from "@cairn/core";
import type { StdioLaunch, StdioLauncher, StdioLaunchRequest } from "@cairn/core/node";
import type { SandboxSettings } from "@cairn/worker";
import { createSandboxedCommand } from "@cairn/worker/sandboxed-command";

export type McpSandboxOptions = {
  root: string;
  additionalDirectories?: readonly string[];
  /** The same sandbox options the agent's Bash runs under (from `sandboxOptionsFromSettings`). */
  sandbox: SandboxSettings;
  cairnHome: string;
  /** The worker's sandbox wrapper (tests pass one that fails). */
  createSandboxedCommand?: typeof createSandboxedCommand;
};

/**
 * Starts stdio MCP servers inside the worker's sandbox, under the Bash policy: writes only to the
 * workspace and a private HOME/TMPDIR per server process, the same reads, the same network rules
 * (none unless `allowNetwork` or `allowedDomains`). When the administrator turned the sandbox off, the
 * server runs directly with the scrubbed environment and its status carries a warning saying so;
 * when the sandbox is on but cannot start here, the server does not start at all (fails closed).
 */
export function createMcpSandboxLauncher(options: McpSandboxOptions): StdioLauncher {
  return async (request) => {
    if (!options.sandbox.enabled)
      return direct(request, 'not sandboxed: the settings turn the sandbox off ("sandbox": { "enabled": false }); it runs with a scrubbed environment only');
    try {
      const command = await (options.createSandboxedCommand ?? createSandboxedCommand)({
        command: request.command,
        args: request.args,
        root: options.root,
        additionalDirectories: [...(options.additionalDirectories ?? [])],
        cwd: request.cwd,
        env: request.serverEnv,
        // The network and read settings as they are (`enabled` is not consulted there).
        policy: options.sandbox,
        cairnHome: options.cairnHome,
        label: `mcp-${request.serverName}`,
      });
      return { command: command.command, args: command.args, env: command.env, cwd: command.cwd, info: { sandboxed: true }, dispose: command.dispose };
    } catch (error) {
      // Fails closed, like Bash: the server does not start (status `failed`, reason `sandbox unavailable: …`).
      if (error instanceof WorkspaceError && error.code === "sandbox_unavailable") {
        throw new WorkspaceError("sandbox_unavailable", `sandbox unavailable: ${error.message}`, { cause: error });
      }
      throw error;
    }
  };
}

function direct(request: StdioLaunchRequest, warning: string): StdioLaunch {
  return {
    command: request.command,
    args: request.args,
    env: { ...request.baseEnv, ...request.serverEnv },
    cwd: request.cwd,
    info: { sandboxed: false, warning },
    dispose: async () => undefined,
  };
}
