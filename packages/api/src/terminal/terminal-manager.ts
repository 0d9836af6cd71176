import { randomBytes } from "node:crypto";
import * as pty from "node-pty";
import { WorkspaceError } from "@cairn/core";
import { prepareTerminalLaunch, type TerminalLaunch } from "@cairn/worker";
import type { Runtime } from "../runtime/create-runtime.ts";
import { sandboxOptionsFromSettings } from "../runtime/sandbox-options.ts";
import type { TerminalsPort } from "../router/context.ts";
import { ApiError } from "../router/errors.ts";
import type { TerminalOutput } from "../router/types.ts";
import { OutputLog } from "./output-log.ts";

export const MAX_TERMINALS = 8;
/** A terminal nobody has watched for this long (its tab closed or lost) is closed. */
export const TERMINAL_IDLE_MS = 15 * 60_000;

type Terminal = {
  id: string;
  shell: pty.IPty;
  log: OutputLog;
  launch: TerminalLaunch;
  exited: Promise<void>;
  /** Open output streams; a reconnecting tab opens a new one before the old one ends. */
  readers: number;
  /** When the last reader left (or the terminal opened without one); null while someone watches. */
  unwatchedSince: number | null;
};

export type TerminalManagerOptions = {
  launch?: (runtime: Runtime) => Promise<TerminalLaunch>;
  /** Close terminals nobody has watched for this long. */
  idleMs?: number;
  now?: () => number;
};

/**
 * Interactive shells for the web terminal: bash in a pty, inside the same sandbox and with the same
 * scrubbed environment as the agent's Bash, cwd at the workspace root. Output is kept in a bounded
 * log with a seq per chunk, so a reconnecting tab continues where it stopped.
 */
export class TerminalManager implements TerminalsPort {
  private readonly terminals = new Map<string, Terminal>();
  private readonly runtime: Runtime;
  private readonly launch: (runtime: Runtime) => Promise<TerminalLaunch>;
  private readonly idleMs: number;
  private readonly now: () => number;
  private sweeper: ReturnType<typeof setInterval> | null = null;

  constructor(runtime: Runtime, options: TerminalManagerOptions = {}) {
    this.runtime = runtime;
    this.launch = options.launch ?? defaultLaunch;
    this.idleMs = options.idleMs ?? TERMINAL_IDLE_MS;
    this.now = options.now ?? Date.now;
  }

  async open(options: { cols: number; rows: number }): Promise<{ terminalId: string }> {
    if (this.terminals.size >= MAX_TERMINALS) throw new ApiError("terminal_unavailable", `At most ${MAX_TERMINALS} terminals can be open at once`);
    let launch: TerminalLaunch;
    try {
      launch = await this.launch(this.runtime);
    } catch (error) {
      if (error instanceof WorkspaceError) throw new ApiError("terminal_unavailable", error.message, { cause: error });
      throw error;
    }
    let shell: pty.IPty;
    try {
      shell = pty.spawn(launch.file, launch.args, { name: "xterm-256color", cols: options.cols, rows: options.rows, cwd: launch.cwd, env: launch.env });
    } catch (error) {
      await launch.release();
      throw new ApiError("terminal_unavailable", `The terminal could not start: ${(error as Error).message}`, { cause: error });
    }
    const id = randomBytes(12).toString("base64url");
    const log = new OutputLog();
    shell.onData((data) => log.append({ type: "data", data }));
    const exited = new Promise<void>((resolve) => {
      shell.onExit(({ exitCode, signal }) => {
        log.append({ type: "exit", exitCode, signal: signal ?? null });
        log.end();
        void launch.release().finally(resolve);
      });
    });
    this.terminals.set(id, { id, shell, log, launch, exited, readers: 0, unwatchedSince: this.now() });
    this.startSweeping();
    return { terminalId: id };
  }

  input(terminalId: string, data: string): void {
    const terminal = this.require(terminalId);
    if (!terminal.log.ended) terminal.shell.write(data);
  }

  resize(terminalId: string, cols: number, rows: number): void {
    const terminal = this.require(terminalId);
    if (!terminal.log.ended) terminal.shell.resize(cols, rows);
  }

  async close(terminalId: string): Promise<void> {
    const terminal = this.require(terminalId);
    this.terminals.delete(terminalId);
    await stop(terminal);
  }

  async *output(terminalId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<{ seq: number; output: TerminalOutput }> {
    const terminal = this.require(terminalId);
    terminal.readers++;
    terminal.unwatchedSince = null;
    try {
      yield* terminal.log.read(afterSeq, signal);
    } finally {
      terminal.readers--;
      if (terminal.readers === 0) terminal.unwatchedSince = this.now();
    }
  }

  /** Closes the terminals nobody has watched for `idleMs`; returns their ids. Runs on a timer too. */
  async reapIdle(): Promise<string[]> {
    const now = this.now();
    const idle = [...this.terminals.values()].filter((terminal) => terminal.unwatchedSince !== null && now - terminal.unwatchedSince >= this.idleMs);
    for (const terminal of idle) this.terminals.delete(terminal.id);
    if (this.terminals.size === 0) this.stopSweeping();
    await Promise.all(idle.map(stop));
    return idle.map((terminal) => terminal.id);
  }

  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => void this.reapIdle(), Math.max(1_000, Math.min(60_000, this.idleMs / 4)));
    this.sweeper.unref();
  }

  private stopSweeping(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  get openCount(): number {
    return this.terminals.size;
  }

  async closeAll(): Promise<void> {
    this.stopSweeping();
    const all = [...this.terminals.values()];
    this.terminals.clear();
    await Promise.all(all.map(stop));
  }

  private require(terminalId: string): Terminal {
    const terminal = this.terminals.get(terminalId);
    if (!terminal) throw new ApiError("terminal_not_found", `No terminal ${terminalId}`);
    return terminal;
  }
}

async function stop(terminal: Terminal): Promise<void> {
  if (!terminal.log.ended) {
    try {
      terminal.shell.kill("SIGHUP");
    } catch {
      // already gone
    }
    const timer = setTimeout(() => {
      try {
        terminal.shell.kill("SIGKILL");
      } catch {
        // already gone
      }
    }, 2_000);
    await terminal.exited;
    clearTimeout(timer);
  } else {
    await terminal.exited;
  }
}

function defaultLaunch(runtime: Runtime): Promise<TerminalLaunch> {
  const merged = runtime.settings.merged;
  return prepareTerminalLaunch({
    root: runtime.workspaceRoot,
    additionalDirectories: merged.permissions.additionalDirectories,
    sandbox: sandboxOptionsFromSettings(merged.sandbox, runtime.cairnHome),
    env: merged.env,
    cairnHome: runtime.cairnHome,
  });
}
