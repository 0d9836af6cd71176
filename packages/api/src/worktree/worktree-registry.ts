import { mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "@cairn/core/node";

export const worktreeRecordSchema = z.object({
  sessionId: z.string().min(1),
  /** The worktree's directory (under `$CAIRN_HOME/worktrees/<workspace>/`). */
  path: z.string().min(1),
  /** `cairn/<sessionId>`. */
  branch: z.string().min(1),
  /** The workspace branch it came from, and merges back into. */
  base: z.string().min(1),
  /** The main checkout's repository directory its `.git` file points into. */
  repository: z.string().min(1),
  createdAt: z.string(),
  /** Set once the worktree and its branch are removed; the conversation stays readable. */
  discardedAt: z.string().optional(),
});
export type WorktreeRecord = z.infer<typeof worktreeRecordSchema>;

const registryFileSchema = z.object({ version: z.literal(1), sessions: z.array(worktreeRecordSchema) });

/**
 * Which sessions of a workspace run in their own worktree (one JSON file beside the worktrees, written
 * atomically), so a session resumed after a restart runs in its worktree again. Held in memory after
 * the first read; writes are queued one after another.
 */
export class WorktreeRegistry {
  private readonly file: string;
  private records: Promise<Map<string, WorktreeRecord>> | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(file: string) {
    this.file = file;
  }

  async get(sessionId: string): Promise<WorktreeRecord | undefined> {
    return (await this.load()).get(sessionId);
  }

  async all(): Promise<WorktreeRecord[]> {
    return [...(await this.load()).values()];
  }

  put(record: WorktreeRecord): Promise<void> {
    const run = this.queue.then(async () => {
      const records = await this.load();
      records.set(record.sessionId, record);
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.file, `${JSON.stringify({ version: 1, sessions: [...records.values()] }, null, 2)}\n`);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private load(): Promise<Map<string, WorktreeRecord>> {
    this.records ??= readFile(this.file, "utf8").then(
      (text) => {
        // A damaged file must not pass for "no worktree sessions": those sessions would run in the main checkout.
        const parsed = registryFileSchema.parse(JSON.parse(text));
        return new Map(parsed.sessions.map((record) => [record.sessionId, record]));
      },
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return new Map<string, WorktreeRecord>();
        throw error;
      },
    );
    return this.records;
  }
}
