"use client";

import "@xterm/xterm/css/xterm.css";
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import { useEffect, useRef, useState } from "react";
import { errorMessage, trpcErrorCode } from "@/lib/errors";
import { cssFontFamily } from "@/lib/fonts";
import { createInputPump } from "./input-pump";
import { useTRPCClient } from "@/trpc/client";

const STORAGE_KEY = "cairn:terminal";

/** A shell on the server, bound to xterm.js: output from `terminal.output`, keystrokes to `terminal.input`. */
export default function XtermView({ generation }: { generation: number }) {
  const client = useTRPCClient();
  const hostRef = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState<"starting" | "ready" | "exited" | "failed">("starting");
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const controller = new AbortController();
    const terminal = new Terminal({
      fontFamily: cssFontFamily("--font-geist-mono", "monospace"),
      fontSize: 13,
      cursorBlink: true,
      convertEol: false,
      scrollback: 5_000,
      theme: { background: "#101216", foreground: "#d8dee9" },
    });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(host);
    fit.fit();
    // Cells are measured with the font: measure again once the web font has loaded.
    void document.fonts.ready.then(() => {
      if (controller.signal.aborted) return;
      terminal.options.fontFamily = cssFontFamily("--font-geist-mono", "monospace");
      fit.fit();
    });
    let subscription: { unsubscribe(): void } | undefined;
    let pump: ReturnType<typeof createInputPump> | undefined;
    const disposables: { dispose(): void }[] = [];

    const attach = (terminalId: string, reused: boolean) => {
      window.sessionStorage.setItem(STORAGE_KEY, terminalId);
      host.dataset.terminalId = terminalId;
      pump = createInputPump(
        (data) => client.terminal.input.mutate({ terminalId, data }),
        (error) => setProblem(`Input was lost: ${errorMessage(error)}`),
      );
      disposables.push(terminal.onData((data) => pump?.write(data)));
      disposables.push(
        terminal.onResize(({ cols, rows }) => {
          client.terminal.resize.mutate({ terminalId, cols, rows }).catch(() => undefined);
        }),
      );
      subscription = client.terminal.output.subscribe(
        { terminalId, lastEventId: null },
        {
          onStarted: () => setStatus("ready"),
          onData: ({ data }) => {
            if (data.type === "data") terminal.write(data.data);
            else {
              terminal.write(`\r\n[process exited${data.exitCode !== null ? ` with code ${data.exitCode}` : ""}]\r\n`);
              setStatus("exited");
              window.sessionStorage.removeItem(STORAGE_KEY);
            }
          },
          onError: (error) => {
            subscription?.unsubscribe();
            if (reused && error.data?.code === "NOT_FOUND") {
              window.sessionStorage.removeItem(STORAGE_KEY);
              pump?.close();
              for (const disposable of disposables.splice(0)) disposable.dispose();
              void start(false);
              return;
            }
            setStatus("failed");
            setProblem(error.message);
          },
        },
      );
      if (reused) client.terminal.resize.mutate({ terminalId, cols: terminal.cols, rows: terminal.rows }).catch(() => undefined);
    };

    const start = async (mayReuse: boolean) => {
      const existing = window.sessionStorage.getItem(STORAGE_KEY);
      if (existing && mayReuse) return attach(existing, true);
      // "New shell": the old one is not coming back.
      if (existing) client.terminal.close.mutate({ terminalId: existing }).catch(() => undefined);
      try {
        const opened = await client.terminal.open.mutate({ cols: terminal.cols, rows: terminal.rows }, { signal: controller.signal });
        if (!controller.signal.aborted) attach(opened.terminalId, false);
      } catch (error) {
        if (controller.signal.aborted) return;
        setStatus("failed");
        setProblem(
          trpcErrorCode(error) === "PRECONDITION_FAILED" ? `The terminal is not available on this server: ${errorMessage(error)}` : errorMessage(error),
        );
      }
    };
    void start(generation === 0);

    const observer = new ResizeObserver(() => {
      if (host.clientWidth > 0 && host.clientHeight > 0) fit.fit();
    });
    observer.observe(host);
    return () => {
      controller.abort();
      observer.disconnect();
      subscription?.unsubscribe();
      pump?.close();
      for (const disposable of disposables) disposable.dispose();
      terminal.dispose();
    };
  }, [client, generation]);

  return (
    <div className="xterm-wrap" data-status={status}>
      {problem ? (
        <div className="notice-bar error" role="alert">
          {problem}
        </div>
      ) : null}
      <div ref={hostRef} className="xterm-host" data-testid="terminal-screen" />
    </div>
  );
}
