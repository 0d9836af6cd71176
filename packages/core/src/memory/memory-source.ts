import { resolvePosix } from "../permissions/posix-path.ts";
import { discoverSkills, type SkillDiscovery, type SkillRoots } from "../skills/discover.ts";
import { loadMemoryFiles, type MemoryLoad } from "./load.ts";
import type { MemoryFs, MemoryKind, MemoryWatch } from "./port.ts";

export type MemorySourceOptions = {
  fs: MemoryFs;
  workspaceRoot: string;
  homeDir: string;
  cairnHome: string;
};

/** The memory files and skills of a workspace as they are now. */
export type MemoryState = { memory: MemoryLoad; skills: SkillDiscovery };

/**
 * The memory files (user, project, local) and skills of one workspace, loaded once and kept current for
 * everyone who reads them: where the file system can watch (`MemoryFs.watch`), the paths the last load
 * looked at are watched and a check with no change since costs no system call; after a change (or without
 * a watch) it stats those paths and reloads only what moved. Either way an edit reaches the next check.
 * A server shares one source among its sessions: a hundred sessions starting at once load and watch the
 * files once, not a hundred times (each load is dozens of file system calls, the watch's setup synchronous).
 */
export type MemorySource = {
  current(): Promise<MemoryState>;
  /** What `loadMemoryFiles` needs beyond the paths (subdirectory memory loads with the same roots). */
  loadOptions(): Promise<{ fs: MemoryFs; homeDir: string; allowedRoots: string[] }>;
  readonly fs: MemoryFs;
  readonly workspaceRoot: string;
  /** Stops watching the files; later checks stat them. */
  close(): void;
};

/** Reloads in a row while the files keep changing before the check settles; then the next check stats again. */
const MAX_SETTLE_ATTEMPTS = 3;

export function createMemorySource(options: MemorySourceOptions): MemorySource {
  const { fs } = options;
  const root = resolvePosix("/", options.workspaceRoot);
  const home = resolvePosix("/", options.homeDir);
  const cairnHome = resolvePosix("/", options.cairnHome);
  const rootFiles: Array<{ path: string; kind: MemoryKind }> = [
    { path: `${cairnHome}/CLAUDE.md`, kind: "user" },
    { path: `${home}/.claude/CLAUDE.md`, kind: "user" },
    { path: `${root}/CLAUDE.md`, kind: "project" },
    { path: `${root}/.claude/CLAUDE.md`, kind: "project" },
    { path: `${root}/CLAUDE.local.md`, kind: "local" },
  ];
  const skillRoots: SkillRoots = {
    skills: [
      { dir: `${root}/.claude/skills`, source: "project" },
      { dir: `${home}/.claude/skills`, source: "user" },
      { dir: `${cairnHome}/skills`, source: "user" },
    ],
    commands: [
      { dir: `${root}/.claude/commands`, source: "project" },
      { dir: `${home}/.claude/commands`, source: "user" },
    ],
  };
  let allowedRoots: Promise<string[]> | undefined;
  const roots = () => (allowedRoots ??= Promise.all([root, `${home}/.claude`, cairnHome].map(async (path) => (await fs.realPath(path)) ?? path)));
  const loadOptions = async () => ({ fs, homeDir: home, allowedRoots: await roots() });

  let memory: MemoryLoad | undefined;
  let skills: SkillDiscovery | undefined;
  let watch: MemoryWatch | undefined;
  let closed = false;
  const stopWatching = () => {
    watch?.close();
    watch = undefined;
  };

  /** Which of the two watched sets has a path whose mtime moved: one `mtimes` call for both. */
  const moved = async (memoryWatched: ReadonlyMap<string, number | null>, skillsWatched: ReadonlyMap<string, number | null>) => {
    const entries = [...memoryWatched, ...skillsWatched];
    const mtimes = await fs.mtimes(entries.map(([path]) => path));
    let memoryMoved = false;
    let skillsMoved = false;
    for (let index = 0; index < entries.length; index++) {
      if (mtimes[index] === entries[index]![1]) continue;
      if (index < memoryWatched.size) memoryMoved = true;
      else skillsMoved = true;
    }
    return { memory: memoryMoved, skills: skillsMoved };
  };

  const check = async (): Promise<MemoryState> => {
    if (memory && skills && watch && !(await watch.changed())) return { memory, skills };
    for (let attempt = 0; ; attempt++) {
      // Watch first, then stat: a change made after the stats is then seen by the watch.
      stopWatching();
      if (memory && skills && !closed && attempt < MAX_SETTLE_ATTEMPTS) watch = fs.watch?.([...memory.watched.keys(), ...skills.watched.keys()]) ?? undefined;
      const checked = memory && skills ? await moved(memory.watched, skills.watched) : undefined;
      const memoryMoved = !memory || checked?.memory === true;
      const skillsMoved = !skills || checked?.skills === true;
      if ((!memoryMoved && !skillsMoved) || attempt >= MAX_SETTLE_ATTEMPTS) return { memory: memory!, skills: skills! };
      if (memoryMoved) memory = await loadMemoryFiles(rootFiles, await loadOptions());
      if (skillsMoved) skills = await discoverSkills(fs, skillRoots);
    }
  };

  // One check at a time. A caller that comes while one runs waits for the next, which starts when that one
  // ends and serves everyone who came meanwhile: a check always begins after its caller asked, so an edit
  // made before the call is seen, and a burst of callers costs at most two checks.
  let running: Promise<MemoryState> | undefined;
  let next: Promise<MemoryState> | undefined;
  const current = (): Promise<MemoryState> => {
    if (!running) {
      running = check().finally(() => {
        running = undefined;
      });
      return running;
    }
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return current();
      });
    return next;
  };

  return {
    current,
    loadOptions,
    fs,
    workspaceRoot: root,
    close() {
      closed = true;
      stopWatching();
    },
  };
}
