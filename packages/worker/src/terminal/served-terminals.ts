import { WorkspaceError } from "@cairn/core/workspace";
import { parseTerminalParams, type TerminalEvent } from "../process/protocol-terminal.ts";
import { TerminalOutputFlow } from "./terminal-output-flow.ts";
import type { TerminalExit, WorkspaceTerminal, WorkspaceTerminals } from "./terminal-port.ts";

type Served = { terminal: WorkspaceTerminal; flow: TerminalOutputFlow };

/**
 * The worker's side of the terminal calls on one connection: the terminals its client opened, by the ids the
 * client chose. A `terminalOpen` call lasts as long as its shell; aborting it (or the connection ending,
 * which aborts every call) hangs the shell up.
 */
export class ServedTerminals {
  readonly #open = new Map<string, Served>();
  readonly #starting = new Set<string>();

  async open(
    terminals: WorkspaceTerminals,
    rawParams: unknown,
    call: { signal: AbortSignal; send: (event: TerminalEvent) => void },
  ): Promise<{ exitCode: number | null; signal: number | null }> {
    const { terminalId, ...options } = parseTerminalParams("terminalOpen", rawParams);
    if (this.#open.has(terminalId) || this.#starting.has(terminalId)) throw new WorkspaceError("invalid_request", `Terminal ${terminalId} is already open`);
    call.signal.throwIfAborted();
    this.#starting.add(terminalId);
    const flow = new TerminalOutputFlow({ send: (data) => call.send({ type: "output", data }) });
    let reportExit: (exit: TerminalExit) => void = () => undefined;
    const exited = new Promise<TerminalExit>((resolve) => {
      reportExit = resolve;
    });
    let terminal: WorkspaceTerminal;
    try {
      terminal = await terminals.open(options, { onData: (data) => flow.push(data), onExit: (exit) => reportExit(exit) });
    } finally {
      this.#starting.delete(terminalId);
    }
    this.#open.set(terminalId, { terminal, flow });
    call.send({ type: "opened", cwd: terminal.cwd, sandboxed: terminal.sandboxed });
    flow.start(terminal);
    const hangUp = () => void terminal.close();
    call.signal.addEventListener("abort", hangUp, { once: true });
    if (call.signal.aborted) hangUp();
    try {
      const exit = await exited;
      // Everything the shell wrote goes out before its exit.
      flow.flush();
      return { exitCode: exit.exitCode, signal: exit.signal };
    } finally {
      call.signal.removeEventListener("abort", hangUp);
      flow.dispose();
      this.#open.delete(terminalId);
    }
  }

  async input(rawParams: unknown): Promise<null> {
    const { terminalId, data } = parseTerminalParams("terminalInput", rawParams);
    await this.#require(terminalId).terminal.write(data);
    return null;
  }

  async resize(rawParams: unknown): Promise<null> {
    const { terminalId, cols, rows } = parseTerminalParams("terminalResize", rawParams);
    await this.#require(terminalId).terminal.resize(cols, rows);
    return null;
  }

  acknowledge(rawParams: unknown): null {
    const { terminalId, chars } = parseTerminalParams("terminalAck", rawParams);
    // An acknowledgement crossing the exit on the wire is not an error.
    this.#open.get(terminalId)?.flow.acknowledge(chars);
    return null;
  }

  #require(terminalId: string): Served {
    const served = this.#open.get(terminalId);
    if (served === undefined) throw new WorkspaceError("not_found", `No open terminal ${terminalId} on this worker connection`);
    return served;
  }
}
