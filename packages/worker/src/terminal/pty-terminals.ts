import type { IPty } from "node-pty";
import { WorkspaceError } from "@cairn/core/workspace";
import type { WorkerEnv } from "../env.ts";
import { terminalOpenOptionsSchema } from "./terminal-options.ts";
import { prepareTerminalLaunch } from "../sandbox/terminal-launch.ts";
import { innerPtyResizer } from "./inner-pty-resize.ts";
import type { LocalWorkspaceOptions } from "../settings.ts";
import type { TerminalListeners, WorkspaceTerminal, WorkspaceTerminals } from "./terminal-port.ts";

/** More than any browser tab needs; a bound on what one client can make the worker spawn. */
export const MAX_TERMINALS_PER_WORKSPACE = 16;
/** After SIGHUP, a shell that has not exited within this is killed. */
const HANGUP_GRACE_MS = 2_000;

const sizeSchema = terminalOpenOptionsSchema.pick({ cols: true, rows: true });

type PtyTerminals = WorkspaceTerminals & { closeAll(): Promise<void> };

function invalid(what: string, error: { issues: { message: string }[] }): WorkspaceError {
  return new WorkspaceError("invalid_request", `Invalid terminal ${what}: ${error.issues.map((issue) => issue.message).join("; ")}`);
}

/**
 * Shells in ptys (node-pty) for one workspace, in this process: each is bash in the workspace's sandbox with
 * the scrubbed environment of the agent's Bash, started in the workspace root or a directory inside it.
 * node-pty loads with the first terminal, so a process that never opens one does not load the addon.
 */
export function createPtyTerminals(options: LocalWorkspaceOptions, workerEnv: WorkerEnv): PtyTerminals {
  const live = new Set<WorkspaceTerminal>();
  let closed = false;

  const open = async (input: unknown, listeners: TerminalListeners): Promise<WorkspaceTerminal> => {
    if (closed) throw new WorkspaceError("worker_unavailable", `The workspace ${options.root} was disposed`);
    const parsed = terminalOpenOptionsSchema.safeParse(input);
    if (!parsed.success) throw invalid("options", parsed.error);
    if (live.size >= MAX_TERMINALS_PER_WORKSPACE) {
      throw new WorkspaceError("io_error", `At most ${MAX_TERMINALS_PER_WORKSPACE} terminals can be open in one workspace`);
    }
    const { cols, rows, cwd } = parsed.data;
    const launch = await prepareTerminalLaunch(options, { cwd, workerEnv });
    let shell: IPty;
    try {
      const pty = await import("node-pty");
      shell = pty.spawn(launch.file, launch.args, { name: "xterm-256color", cols, rows, cwd: launch.cwd, env: launch.env });
    } catch (error) {
      await launch.release();
      throw new WorkspaceError("io_error", `The terminal could not start: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    let ended = false;
    const resizeInner = launch.innerPty ? innerPtyResizer(shell.pid) : undefined;
    const exited = new Promise<void>((resolve) => {
      shell.onExit(({ exitCode, signal }) => {
        ended = true;
        live.delete(terminal);
        // node-pty reports 0 for "no signal".
        listeners.onExit({ exitCode, signal: signal === undefined || signal === 0 ? null : signal });
        void launch
          .release()
          .catch(() => undefined)
          .finally(resolve);
      });
    });
    shell.onData((data) => listeners.onData(data));
    const terminal: WorkspaceTerminal = {
      cwd: launch.cwd,
      sandboxed: launch.sandboxed,
      async write(data) {
        if (!ended) shell.write(data);
      },
      async resize(newCols, newRows) {
        const size = sizeSchema.safeParse({ cols: newCols, rows: newRows });
        if (!size.success) throw invalid("size", size.error);
        if (ended) return;
        shell.resize(size.data.cols, size.data.rows);
        await resizeInner?.();
      },
      pause() {
        if (!ended) shell.pause();
      },
      resume() {
        if (!ended) shell.resume();
      },
      async close() {
        if (!ended) hangUp(shell);
        await exited;
      },
    };
    live.add(terminal);
    return terminal;
  };

  return {
    open,
    async closeAll() {
      closed = true;
      await Promise.all([...live].map((terminal) => terminal.close()));
    },
  };
}

/** SIGHUP, as when a terminal window closes, then SIGKILL for a shell that ignores it. */
function hangUp(shell: IPty): void {
  // A paused pty never reports the exit: its output must drain first.
  shell.resume();
  const kill = (signal: string) => {
    try {
      shell.kill(signal);
    } catch {
      // already gone
    }
  };
  kill("SIGHUP");
  const timer = setTimeout(() => kill("SIGKILL"), HANGUP_GRACE_MS);
  shell.onExit(() => clearTimeout(timer));
}
