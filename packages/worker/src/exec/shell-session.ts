import { randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { WorkspaceError } from "@cairn/core/workspace";
import type { ExecOptions, ExecResult, OutputChunk } from "@cairn/core/workspace";
import { CappedText, EndMarkerScanner } from "./end-marker.ts";
import { killGroup, shellQuote, type LaunchedShell, type ShellLauncher } from "./shell-launcher.ts";

export const DEFAULT_MAX_OUTPUT_CHARS = 30_000;

export type ShellSessionOptions = {
  launcher: ShellLauncher;
  root: string;
  /** Where command files go: readable inside the sandbox, never writable there. */
  runDirectory: string;
  /** Shell lines run when the shell starts (exports). */
  prelude: string;
  /** Whether a directory is one the shell may stay in; otherwise it is moved back to the root. */
  isInsideWorkspace: (directory: string) => boolean;
};

type RunningCommand = {
  /** Reported by the stdout marker, which may arrive before the stderr one. */
  cwd?: string;
  stdout: EndMarkerScanner;
  stderr: EndMarkerScanner;
  onText: (stream: OutputChunk["stream"], text: string) => void;
  onFinished: (status: number | null, signal: string | null, cwd?: string) => void;
};

/**
 * One persistent bash: commands are sourced from files one at a time, each followed by an end marker
 * carrying its exit status, so cwd and exported variables persist between calls. A timeout or an
 * abort kills the whole process group; the next command starts a fresh shell in the last known cwd.
 */
export class ShellSession {
  private readonly options: ShellSessionOptions;
  private shell: LaunchedShell | undefined;
  private exited: Promise<void> = Promise.resolve();
  private running: RunningCommand | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private cwd: string;
  private disposed = false;

  constructor(options: ShellSessionOptions) {
    this.options = options;
    this.cwd = options.root;
  }

  get currentDirectory(): string {
    return this.cwd;
  }

  exec(command: string, options: ExecOptions): Promise<ExecResult> {
    const run = this.queue.then(() => this.run(command, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop();
  }

  private async run(command: string, options: ExecOptions): Promise<ExecResult> {
    options.signal.throwIfAborted();
    const shell = await this.ensureShell();
    // Starting a sandboxed shell takes a moment; an abort that came meanwhile still counts.
    options.signal.throwIfAborted();
    const nonce = randomBytes(12).toString("hex");
    const commandFile = join(this.options.runDirectory, `${nonce}.sh`);
    await writeFile(commandFile, command.endsWith("\n") ? command : `${command}\n`, { mode: 0o600 });
    const limit = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
    const stdout = new CappedText(limit);
    const stderr = new CappedText(limit);
    let timedOut = false;
    let interrupted = false;
    const finished = new Promise<{ status: number | null; signal: string | null; cwd?: string }>((resolve) => {
      this.running = {
        stdout: new EndMarkerScanner(nonce),
        stderr: new EndMarkerScanner(nonce),
        onText: (stream, text) => {
          const kept = (stream === "stdout" ? stdout : stderr).append(text);
          if (kept !== "") options.onOutput?.({ stream, data: kept });
        },
        onFinished: (status, signal, cwd) => resolve({ status, signal, ...(cwd === undefined ? {} : { cwd }) }),
      };
    });
    const kill = () => {
      if (this.shell === shell) killGroup(shell.child);
      else this.running?.onFinished(null, null);
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        kill();
      },
      Math.max(1, options.timeoutMs),
    );
    const onAbort = () => {
      interrupted = true;
      kill();
    };
    options.signal.addEventListener("abort", onAbort, { once: true });
    try {
      // The shell may have died since it was started; nothing would ever report this command's end.
      if (this.shell !== shell) this.running?.onFinished(null, null);
      const status = "__cairn_status";
      shell.child.stdin.write(
        `{ . ${shellQuote(commandFile)}; } < /dev/null; ${status}=$?; ` +
          `${EndMarkerScanner.markerCommand(nonce, status, true)}; ${EndMarkerScanner.markerCommand(nonce, status, false)} >&2\n`,
      );
      const outcome = await finished;
      if (outcome.cwd !== undefined && outcome.cwd !== "") this.cwd = outcome.cwd;
      let note = "";
      if (!this.options.isInsideWorkspace(this.cwd)) {
        note = `Shell cwd was reset to ${this.options.root}\n`;
        this.cwd = this.options.root;
        if (this.shell !== undefined) this.shell.child.stdin.write(`builtin cd -- ${shellQuote(this.cwd)}\n`);
      }
      return {
        exitCode: timedOut || interrupted ? null : outcome.status,
        signal: outcome.signal,
        stdout: stdout.text,
        stderr: stderr.text + note,
        timedOut,
        interrupted,
        truncated: stdout.truncated || stderr.truncated,
        cwd: this.cwd,
        sandboxed: this.options.launcher.sandboxed,
      };
    } finally {
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      this.running = undefined;
      await rm(commandFile, { force: true });
    }
  }

  private async ensureShell(): Promise<LaunchedShell> {
    if (this.disposed) throw new WorkspaceError("worker_unavailable", "The shell was disposed with its workspace");
    if (this.shell !== undefined) return this.shell;
    const { launcher, root, prelude } = this.options;
    const shell = await launcher.launch({ cwd: root, prelude });
    this.shell = shell;
    const { child } = shell;
    let resolveExited: () => void = () => undefined;
    this.exited = new Promise((resolve) => {
      resolveExited = resolve;
    });
    child.stdout.on("data", (chunk: Buffer) => this.onData("stdout", chunk));
    child.stderr.on("data", (chunk: Buffer) => this.onData("stderr", chunk));
    child.stdin.on("error", () => undefined); // writes after the shell died
    child.once("close", (code, signal) => {
      if (this.shell === shell) this.shell = undefined;
      const running = this.running;
      if (running !== undefined) {
        for (const stream of ["stdout", "stderr"] as const) {
          const rest = running[stream].flush();
          if (rest !== "") running.onText(stream, rest);
        }
        running.onFinished(code, signal);
      }
      void shell.release().finally(resolveExited);
    });
    child.once("error", () => killGroup(child));
    // A grandchild that escaped the process group can hold the pipes open after the shell is gone.
    child.once("exit", () => {
      const grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, 2_000);
      child.once("close", () => clearTimeout(grace));
    });
    const start = this.options.isInsideWorkspace(this.cwd) ? this.cwd : root;
    child.stdin.write(`${prelude}\nbuiltin cd -- ${shellQuote(start)} 2>/dev/null || builtin cd -- ${shellQuote(root)}\n`);
    return shell;
  }

  private onData(stream: OutputChunk["stream"], chunk: Buffer): void {
    const running = this.running;
    if (running === undefined) return; // output of a finished command's leftovers
    const scanner = running[stream];
    const { text, status, cwd } = scanner.push(chunk);
    if (text !== "") running.onText(stream, text);
    if (stream === "stdout" && cwd !== undefined) running.cwd = cwd;
    if (status !== undefined && running.stdout.done && running.stderr.done) running.onFinished(status, null, running.cwd);
  }

  private async stop(): Promise<void> {
    const shell = this.shell;
    if (shell !== undefined) {
      killGroup(shell.child);
      shell.child.stdin.destroy();
    }
    await this.exited;
  }
}
