import { type ChildProcess, fork } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * A benchmark's helper process (`<name>.bench-child.ts` here, run through tsx), driven over IPC: each message it
 * sends answers the oldest request still waiting. When it exits, whatever still waits fails, naming it.
 */
export class IpcChild<Request, Reply> {
  private readonly waiting: Array<{ resolve: (reply: Reply) => void; reject: (error: Error) => void }> = [];
  private readonly child: ChildProcess;
  private readonly what: string;

  constructor(file: string, what: string) {
    this.what = what;
    this.child = fork(join(here, file), [], { execArgv: ["--import", "tsx"], cwd: here, stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.child.on("message", (reply: Reply) => this.waiting.shift()?.resolve(reply));
    this.child.on("exit", (code) => {
      for (const waiting of this.waiting.splice(0)) waiting.reject(new Error(`${what} exited with code ${code}`));
    });
  }

  /** The child's process id (for its CPU time). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The child's next message (one it sends unasked, as a `ready`). */
  next(): Promise<Reply> {
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  ask(message: Request): Promise<Reply> {
    if (!this.child.connected) return Promise.reject(new Error(`${this.what} has gone`));
    const reply = this.next();
    this.child.send(message as object);
    return reply;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once("exit", () => resolve());
      this.child.disconnect();
    });
  }
}
