import { randomBytes } from "node:crypto";
import { WorkspaceError } from "@cairn/core/workspace";
import type { TerminalListeners, WorkspaceTerminal, WorkspaceTerminals } from "../terminal/terminal-port.ts";
import type { ProtocolConnection } from "./protocol-workspace.ts";
import { terminalOpenOptionsSchema } from "../terminal/terminal-options.ts";
import { terminalExitSchema, terminalMethodSchemas, type TerminalMethodName } from "./protocol-terminal.ts";
import type { MethodParams } from "./protocol.ts";

/** Output is acknowledged in steps of this size (well under the worker's low-water mark, so it never stalls). */
const ACK_STEP_CHARS = 32 * 1024;

function lostMessage(error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  return `This shell ended because its workspace worker went away: ${detail}`;
}

/**
 * Terminals on a worker reached over the protocol (a child process or a `cairn worker --listen` host). Each
 * terminal stays on the connection it was opened on: when that connection dies, the shell is gone with it and
 * the terminal ends with `lostReason`; the next `open` goes through `connect`, which makes a new connection.
 */
export function protocolTerminals(connect: () => ProtocolConnection): WorkspaceTerminals {
  return {
    async open(input, listeners: TerminalListeners): Promise<WorkspaceTerminal> {
      const parsed = terminalOpenOptionsSchema.safeParse(input);
      if (!parsed.success) {
        throw new WorkspaceError("invalid_request", `Invalid terminal options: ${parsed.error.issues.map((issue) => issue.message).join("; ")}`);
      }
      const connection = connect();
      const terminalId = randomBytes(12).toString("base64url");
      const hangUp = new AbortController();
      let acknowledged = 0;
      let received = 0;
      let paused = false;
      let ended = false;
      const call = <M extends Exclude<TerminalMethodName, "terminalOpen">>(method: M, params: MethodParams<M>) =>
        connection.call(method, params, {}).then((value) => terminalMethodSchemas[method].result.parse(value));
      const acknowledge = () => {
        const chars = received - acknowledged;
        if (ended || chars <= 0) return;
        acknowledged = received;
        // A lost acknowledgement only matters on a connection that is gone anyway.
        call("terminalAck", { terminalId, chars }).catch(() => undefined);
      };

      let markOpened: (opened: { cwd: string; sandboxed: boolean }) => void = () => undefined;
      let failOpen: (error: unknown) => void = () => undefined;
      const opened = new Promise<{ cwd: string; sandboxed: boolean }>((resolve, reject) => {
        markOpened = resolve;
        failOpen = reject;
      });
      let isOpen = false;
      const finished = connection.call(
        "terminalOpen",
        { terminalId, ...parsed.data },
        {
          signal: hangUp.signal,
          // Closing waits for the shell's exit; a dead connection answers at once.
          abortWaitsForReply: true,
          onTerminal: (event) => {
            switch (event.type) {
              case "opened":
                isOpen = true;
                markOpened(event);
                return;
              case "output":
                received += event.data.length;
                listeners.onData(event.data);
                if (!paused && received - acknowledged >= ACK_STEP_CHARS) acknowledge();
                return;
            }
          },
        },
      );
      const settled = finished.then(
        (value) => {
          ended = true;
          const exit = terminalExitSchema.safeParse(value);
          if (!isOpen) failOpen(new WorkspaceError("io_error", "The worker ended the terminal before it opened"));
          else listeners.onExit(exit.success ? exit.data : { exitCode: null, signal: null, lostReason: "The worker sent an invalid exit" });
        },
        (error: unknown) => {
          ended = true;
          if (!isOpen) failOpen(error);
          else listeners.onExit({ exitCode: null, signal: null, lostReason: lostMessage(error) });
        },
      );
      const { cwd, sandboxed } = await opened;
      return {
        cwd,
        sandboxed,
        async write(data) {
          if (!ended) await call("terminalInput", { terminalId, data });
        },
        async resize(cols, rows) {
          if (!ended) await call("terminalResize", { terminalId, cols, rows });
        },
        pause() {
          paused = true;
        },
        resume() {
          paused = false;
          acknowledge();
        },
        async close() {
          if (!ended) hangUp.abort();
          await settled;
        },
      };
    },
  };
}
