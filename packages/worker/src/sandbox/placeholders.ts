import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { WorkspaceError } from "@cairn/core/workspace";
import { processStartTime } from "../process/process-start.ts";

// Built at the first read of the state (z.lazy), not whenever the sandbox host's module loads (every `cairn -p` start).
const stateSchema = z.lazy(() =>
  z.object({
    /** Empty directories made in workspaces as mount points, known by identity (see identityOf) so nothing else is ever removed. */
    made: z.array(z.object({ path: z.string(), identity: z.string() })),
    /** Sandboxes that rely on placeholders: the process holding each (pid and start time, so a reused pid is no holder). */
    leases: z.array(z.object({ id: z.string(), pid: z.number(), started: z.string(), paths: z.array(z.string()) })),
  }),
);
type PlaceholderState = z.infer<typeof stateSchema>;

/** What a sandbox holds while it runs; `release` (idempotent) removes the placeholders no other sandbox holds. */
export type PlaceholderLease = { release: () => Promise<void> };

/**
 * bubblewrap can only mount over an entry that exists, so a protected name absent from a workspace
 * root (`.bashrc`, `.mcp.json`, `.vscode`, ...) gets an empty directory there, which the sandbox
 * binds read-only over itself: inside, writing it fails and nothing can be created under it; git
 * lists no empty directory, inside or out. The directory must stay while any sandbox that mounted
 * it runs (removing it on the host detaches that sandbox's mount) and go when the last one ends.
 *
 * Sandboxes of several processes (the server, worker processes, `cairn -p`) share a workspace, so
 * who holds what is kept in one state file per user, changed only under a lock (proper-lockfile):
 * a placeholder is made and leased in one step, and removed only when no live lease names it, it
 * is still the directory that was made, and it is empty. A lease of a process that is gone (killed
 * with its sandboxes, which die with it) counts for nothing: the next lock holder removes what only
 * it held.
 */
export class WorkspacePlaceholders {
  private readonly directory: string;
  private readonly stateFile: string;

  constructor(stateDirectory: string) {
    this.directory = stateDirectory;
    this.stateFile = join(stateDirectory, "placeholders.json");
  }

  /** Holds every path until `release`, making each absent one an empty directory. */
  async hold(paths: readonly string[]): Promise<PlaceholderLease> {
    if (paths.length === 0) return { release: async () => undefined };
    const id = randomBytes(12).toString("hex");
    try {
      await this.update((state) => {
        state.leases.push({ id, pid: process.pid, started: processStartTime(process.pid) ?? "", paths: [...paths] });
        for (const path of paths) {
          if (makeDirectory(path)) state.made.push({ path, identity: identityOf(path) });
        }
      });
    } catch (error) {
      await this.end(id).catch(() => undefined);
      throw new WorkspaceError("sandbox_unavailable", `The sandbox could not protect the workspace's absent shell and agent files: ${String(error)}`, {
        cause: error,
      });
    }
    let released: Promise<void> | undefined;
    return {
      release: () => {
        released ??= this.end(id);
        return released;
      },
    };
  }

  /**
   * Of these paths, the ones that are placeholders now (made for a sandbox, still empty), which a
   * listing of the workspace leaves out. Read without the lock: the state file is replaced whole.
   */
  placeholdersAmong(paths: readonly string[]): Set<string> {
    const made = new Map(this.read().made.map((entry) => [entry.path, entry]));
    const found = new Set<string>();
    for (const path of paths) {
      const entry = made.get(path);
      if (entry === undefined) continue;
      try {
        if (identityOf(path) === entry.identity && readdirSync(path).length === 0) found.add(path);
      } catch {
        // gone meanwhile: nothing to leave out
      }
    }
    return found;
  }

  /** Removes what only gone processes held (a server killed with its shells): call at start-up. */
  sweep(): Promise<void> {
    return this.update(() => undefined);
  }

  private end(id: string): Promise<void> {
    return this.update((state) => {
      state.leases = state.leases.filter((lease) => lease.id !== id);
    });
  }

  /** One change of the state under the lock, followed by removing every placeholder no live lease holds. */
  private async update(change: (state: PlaceholderState) => void): Promise<void> {
    this.ensureDirectory();
    // Loaded with the first sandbox that needs a placeholder: proper-lockfile brings graceful-fs (which patches fs) and
    // signal-exit, which a start that never sandboxes a command has no use for.
    const { default: lockfile } = await import("proper-lockfile");
    const unlock = await lockfile.lock(this.directory, {
      lockfilePath: join(this.directory, "placeholders.lock"),
      realpath: false,
      stale: 10_000,
      update: 2_000,
      retries: { retries: 200, factor: 1.3, minTimeout: 5, maxTimeout: 100 },
      // A lock lost to staleness (this process stalled for 10 s) is not worth crashing for; the next holder sweeps again.
      onCompromised: () => undefined,
    });
    try {
      const state = this.read();
      change(state);
      state.leases = state.leases.filter((lease) => this.isLive(lease));
      const held = new Set(state.leases.flatMap((lease) => lease.paths));
      state.made = state.made.filter((entry) => held.has(entry.path) || !removeIfUntouched(entry));
      const temporary = `${this.stateFile}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(state), { mode: 0o600 });
      renameSync(temporary, this.stateFile);
    } finally {
      await unlock().catch(() => undefined);
    }
  }

  private read(): PlaceholderState {
    let text: string;
    try {
      text = readFileSync(this.stateFile, "utf8");
    } catch {
      return { made: [], leases: [] };
    }
    const parsed = stateSchema.safeParse(safeJson(text));
    return parsed.success ? parsed.data : { made: [], leases: [] };
  }

  /** Held by a process still running (this one included, until it releases). */
  private isLive(lease: PlaceholderState["leases"][number]): boolean {
    return lease.started !== "" && processStartTime(lease.pid) === lease.started;
  }

  /** The state directory is this user's alone: another user's (or a link) would let them steer what is removed. */
  private ensureDirectory(): void {
    mkdirSync(this.directory, { recursive: true, mode: 0o700 });
    const info = lstatSync(this.directory);
    const uid = process.getuid?.();
    if (!info.isDirectory() || (uid !== undefined && info.uid !== uid) || (info.mode & 0o077) !== 0) {
      throw new WorkspaceError("sandbox_unavailable", `${this.directory} must be a directory of this user's, closed to others (mode 700)`);
    }
  }
}

/** Whether `mkdir` made it now; an entry already there (real, or another sandbox's placeholder) is left as it is. */
function makeDirectory(path: string): boolean {
  try {
    mkdirSync(path, { mode: 0o755 });
    return true;
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "EEXIST") return false;
    throw error;
  }
}

/**
 * Removes a placeholder that is still the empty directory that was made; true when it is gone or no
 * longer ours to remove (replaced, or holding something a person or a tool put there).
 */
function removeIfUntouched(entry: PlaceholderState["made"][number]): boolean {
  try {
    if (identityOf(entry.path) !== entry.identity || readdirSync(entry.path).length > 0) return true;
    rmdirSync(entry.path);
    return true;
  } catch (error) {
    // Gone already, or filled meanwhile: either way not ours any more. Anything else: try again at the next change.
    const code = error instanceof Error && "code" in error ? error.code : undefined;
    return code === "ENOENT" || code === "ENOTEMPTY" || code === "ENOTDIR";
  }
}

/**
 * A directory's device, inode and birth time (change time where the file system keeps no birth time):
 * a directory removed and made again often gets the same inode number, never the same birth.
 */
function identityOf(path: string): string {
  const info = lstatSync(path, { bigint: true });
  if (!info.isDirectory()) return "not a directory";
  return `${info.dev}:${info.ino}:${info.birthtimeNs > 0n ? info.birthtimeNs : info.ctimeNs}`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
