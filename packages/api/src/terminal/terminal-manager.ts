import { randomBytes } from "node:crypto";
import { WorkspaceError } from "@cairn/core";
import type { WorkspaceTerminal, WorkspaceTerminals } from "@cairn/worker";
import type { TerminalsPort } from "../router/context.ts";
import { ApiError } from "../router/errors.ts";
import type { TerminalOutput } from "../router/types.ts";
import { OutputLog } from "./output-log.ts";

export const MAX_TERMINALS = 8;
/** A terminal nobody has watched for this long (its tab closed or lost) is closed. */
export const TERMINAL_IDLE_MS = 15 * 60_000;

type Terminal = {
  id: string;
  shell: WorkspaceTerminal;
  log: OutputLog;
  /** Resolves once the shell has exited (or was lost with its worker). */
  exited: Promise<void>;
  /** Open output streams; a reconnecting tab opens a new one before the old one ends. */
  readers: number;
  /** When the last reader left (or the terminal opened without one); null while someone watches. */
  unwatchedSince: number | null;
};

export type TerminalManagerOptions = {
  /** Close terminals nobody has watched for this long. */
  idleMs?: number;
  now?: () => number;
};

/** The terminals of the workspace the IDE shows, read at each open: the workspace (and its worker) may be replaced. */
export type TerminalHost = () => WorkspaceTerminals;

/**
 * The web terminals: shells opened through the workspace's terminal port, so they run where the workspace
 * does (in this process, a local worker process or a `cairn worker --listen` host), in the same sandbox and
 * with the same scrubbed environment as the agent's Bash. Output is kept in a bounded log with a seq per
 * chunk, so a reconnecting tab continues where it stopped. A shell lost with its worker ends with a line
 * saying so; the next open goes to the worker again.
 */
export class TerminalManager implements TerminalsPort {
  private readonly terminals = new Map<string, Terminal>();
  private readonly host: TerminalHost;
  private readonly idleMs: number;
  private readonly now: () => number;
  private sweeper: ReturnType<typeof setInterval> | null = null;

  constructor(host: TerminalHost, options: TerminalManagerOptions = {}) {
    this.host = host;
    this.idleMs = options.idleMs ?? TERMINAL_IDLE_MS;
    this.now = options.now ?? Date.now;
  }

  async open(options: { cols: number; rows: number }): Promise<{ terminalId: string }> {
    if (this.terminals.size >= MAX_TERMINALS) throw new ApiError("terminal_unavailable", `At most ${MAX_TERMINALS} terminals can be open at once`);
    const log = new OutputLog();
    let markExited: () => void = () => undefined;
    const exited = new Promise<void>((resolve) => {
      markExited = resolve;
    });
    let shell: WorkspaceTerminal;
    try {
      shell = await this.host().open(
        { cols: options.cols, rows: options.rows },
        {
          onData: (data) => log.append({ type: "data", data }),
          onExit: ({ exitCode, signal, lostReason }) => {
            if (lostReason !== undefined) log.append({ type: "data", data: `\r\n\x1b[31m[${lostReason}. Open a new shell to continue.]\x1b[0m\r\n` });
            log.append({ type: "exit", exitCode, signal });
            log.end();
            markExited();
          },
        },
      );
    } catch (error) {
      throw unavailable(error);
    }
    const id = randomBytes(12).toString("base64url");
    this.terminals.set(id, { id, shell, log, exited, readers: 0, unwatchedSince: this.now() });
    this.startSweeping();
    return { terminalId: id };
  }

  async input(terminalId: string, data: string): Promise<void> {
    const terminal = this.require(terminalId);
    if (!terminal.log.ended) await terminal.shell.write(data).catch((error: unknown) => Promise.reject(unavailable(error)));
  }

  async resize(terminalId: string, cols: number, rows: number): Promise<void> {
    const terminal = this.require(terminalId);
    if (!terminal.log.ended) await terminal.shell.resize(cols, rows).catch((error: unknown) => Promise.reject(unavailable(error)));
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
  await terminal.shell.close().catch(() => undefined);
  await terminal.exited;
}

/** A refusal from the workspace (no sandbox, a worker that is away, a bad directory) in the API's terms. */
function unavailable(error: unknown): unknown {
  if (!(error instanceof WorkspaceError)) return error;
  return new ApiError("terminal_unavailable", error.message, { cause: error });
}
