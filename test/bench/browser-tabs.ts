import { type ChildProcess, fork } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TabsReply, TabsRequest, TabStream } from "./browser-tabs.bench-child.ts";

const here = dirname(fileURLToPath(import.meta.url));

export type TabsStatus = Extract<TabsReply, { kind: "status" }>;

/**
 * The browser tabs of a latency round (`session.events` readers, sse-reader.ts) in a process of their own
 * (browser-tabs.bench-child.ts): each delta id is stamped, on CLOCK_MONOTONIC, when its bytes reach a tab, whatever
 * the benchmark's own process is doing meanwhile.
 */
export class BrowserTabs {
  private readonly replies: Array<{ resolve: (reply: TabsReply) => void; reject: (error: Error) => void }> = [];
  private readonly child: ChildProcess;

  private constructor(child: ChildProcess) {
    this.child = child;
    child.on("message", (reply: TabsReply) => this.replies.shift()?.resolve(reply));
    child.on("exit", (code) => {
      for (const waiting of this.replies.splice(0)) waiting.reject(new Error(`the browser tabs' process exited with code ${code}`));
    });
  }

  static start(): BrowserTabs {
    return new BrowserTabs(
      fork(join(here, "browser-tabs.bench-child.ts"), [], { execArgv: ["--import", "tsx"], cwd: here, stdio: ["ignore", "inherit", "inherit", "ipc"] }),
    );
  }

  /** Opens one tab per stream; resolves once every one has its `connected` frame. */
  async open(streams: TabStream[]): Promise<void> {
    const reply = await this.ask({ kind: "open", streams });
    if (reply.kind === "failed") throw new Error(`a tab could not follow its session: ${reply.message}`);
  }

  /** Delta ids received, runs ended, and the sum of each tab's highest event id. */
  async status(): Promise<TabsStatus> {
    const reply = await this.ask({ kind: "status" });
    if (reply.kind !== "status") throw new Error(`unexpected ${reply.kind}`);
    return reply;
  }

  /** Polls the tabs (every 20 ms) until `done` holds; after `timeoutMs` fails, naming what they had (`describe`). */
  async waitUntil(done: (status: TabsStatus) => boolean, timeoutMs: number, describe: (status: TabsStatus) => string): Promise<TabsStatus> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.status();
      if (done(status)) return status;
      if (Date.now() > deadline) throw new Error(`timed out: ${describe(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Closes the tabs; when each delta id first reached one. */
  async take(): Promise<Map<string, number>> {
    const reply = await this.ask({ kind: "take" });
    return new Map(reply.kind === "taken" ? reply.entries : []);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once("exit", () => resolve());
      this.child.disconnect();
    });
  }

  private ask(message: TabsRequest): Promise<TabsReply> {
    return new Promise((resolve, reject) => {
      if (!this.child.connected) return reject(new Error("the browser tabs' process has gone"));
      this.replies.push({ resolve, reject });
      this.child.send(message);
    });
  }
}
