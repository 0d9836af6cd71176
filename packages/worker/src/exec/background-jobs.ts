import { randomBytes } from "node:crypto";
import { StringDecoder } from "node:string_decoder";
import { WorkspaceError } from "@cairn/core/workspace";
import type { BackgroundJob, BackgroundOutput } from "@cairn/core/workspace";
import { killGroup, type LaunchedShell, type ShellLauncher } from "./shell-launcher.ts";

/** Unread output kept per stream; older text is dropped first. */
export const BACKGROUND_BUFFER_CHARS = 200_000;

/** Output not yet read, keeping only the newest `limit` characters. */
class RingText {
  private readonly limit: number;
  private readonly decoder = new StringDecoder("utf8");
  private value = "";
  private dropped = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  push(chunk: Buffer): void {
    this.value += this.decoder.write(chunk);
    if (this.value.length > this.limit) {
      this.dropped += this.value.length - this.limit;
      this.value = this.value.slice(this.value.length - this.limit);
    }
  }

  end(): void {
    this.value += this.decoder.end();
  }

  take(): { text: string; dropped: number } {
    const taken = { text: this.value, dropped: this.dropped };
    this.value = "";
    this.dropped = 0;
    return taken;
  }
}

type Job = {
  info: BackgroundJob;
  shell: LaunchedShell;
  stdout: RingText;
  stderr: RingText;
  closed: Promise<void>;
};

/** Commands started in the background, each its own (sandboxed) process group. */
export class BackgroundJobs {
  private readonly jobs = new Map<string, Job>();
  private readonly launcher: ShellLauncher;

  constructor(launcher: ShellLauncher) {
    this.launcher = launcher;
  }

  async start(command: string, cwd: string, prelude: string): Promise<BackgroundJob> {
    const shell = await this.launcher.launch({ cwd, prelude, script: command });
    const id = `bg-${randomBytes(6).toString("hex")}`;
    const info: BackgroundJob = { id, command, startedAt: Date.now(), status: "running", exitCode: null };
    const stdout = new RingText(BACKGROUND_BUFFER_CHARS);
    const stderr = new RingText(BACKGROUND_BUFFER_CHARS);
    shell.child.stdin.end();
    shell.child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    shell.child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    const closed = new Promise<void>((resolve) => {
      shell.child.once("close", (code) => {
        stdout.end();
        stderr.end();
        if (info.status === "running") {
          info.status = "exited";
          info.exitCode = code;
        }
        void shell.release().finally(resolve);
      });
    });
    shell.child.once("exit", () => {
      const grace = setTimeout(() => {
        shell.child.stdout.destroy();
        shell.child.stderr.destroy();
      }, 2_000);
      shell.child.once("close", () => clearTimeout(grace));
    });
    this.jobs.set(id, { info, shell, stdout, stderr, closed });
    return { ...info };
  }

  read(id: string): BackgroundOutput & { truncated: boolean } {
    const job = this.get(id);
    const stdout = job.stdout.take();
    const stderr = job.stderr.take();
    const note = (dropped: number) => (dropped > 0 ? `[${dropped} earlier characters were dropped]\n` : "");
    return {
      ...job.info,
      stdout: note(stdout.dropped) + stdout.text,
      stderr: note(stderr.dropped) + stderr.text,
      truncated: stdout.dropped > 0 || stderr.dropped > 0,
    };
  }

  async kill(id: string): Promise<BackgroundJob> {
    const job = this.get(id);
    if (job.info.status === "running") {
      job.info.status = "killed";
      killGroup(job.shell.child);
      await job.closed;
    }
    return { ...job.info };
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.jobs.keys()].map((id) => this.kill(id)));
    this.jobs.clear();
  }

  private get(id: string): Job {
    const job = this.jobs.get(id);
    if (job === undefined) throw new WorkspaceError("not_found", `There is no background job ${id}`);
    return job;
  }
}
