import type { TerminalOpenOptions } from "./terminal-options.ts";

export type TerminalExit = {
  exitCode: number | null;
  signal: number | null;
  /** Set when the shell was lost with its worker (killed, or the connection dropped), in words for the terminal. */
  lostReason?: string;
};

export type TerminalListeners = {
  onData(data: string): void;
  /** Called once, after the last `onData`. */
  onExit(exit: TerminalExit): void;
};

/** One interactive shell in a pty, wherever it runs. */
export interface WorkspaceTerminal {
  /** The shell's starting directory, as the worker sees it. */
  readonly cwd: string;
  readonly sandboxed: boolean;
  write(data: string): Promise<void>;
  resize(cols: number, rows: number): Promise<void>;
  /** Stops taking output (the shell blocks once its pty buffer fills) until `resume`. */
  pause(): void;
  resume(): void;
  /** Hangs up the shell (killing it if it lingers) and resolves once it has exited. */
  close(): Promise<void>;
}

/**
 * The web terminal's port on a workspace: shells run where the workspace lives (in this process, in a
 * local worker process or on a `cairn worker --listen` host), confined and sandboxed like the agent's Bash.
 */
export interface WorkspaceTerminals {
  open(options: TerminalOpenOptions, listeners: TerminalListeners): Promise<WorkspaceTerminal>;
}
