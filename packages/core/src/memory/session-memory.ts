import { dirnamePosix, isWithin, resolvePosix } from "../permissions/posix-path.ts";
import type { SkillDefinition, SkillProblem } from "../skills/definition.ts";
import { discoverSkills, readSkillBody, type SkillCatalog, type SkillDiscovery, type SkillRoots } from "../skills/discover.ts";
import type { SkillGrants } from "../skills/invoke.ts";
import type { ToolUseContext } from "../tools/tool.ts";
import { loadMemoryFiles, type MemoryLoad } from "./load.ts";
import type { MemoryFile, MemoryFs, MemoryKind, MemoryNotice, MemoryWatch } from "./port.ts";
import { renderMemoryReminder, renderNestedMemory, renderSkillListing } from "./render.ts";

export const MEMORY_SERVICE = "memory";

export type SessionMemoryOptions = {
  fs: MemoryFs;
  workspaceRoot: string;
  homeDir: string;
  cairnHome: string;
  /** Today's date as YYYY-MM-DD. */
  today: () => string;
  /** Project skills grant their `allowed-tools` only in a trusted workspace. */
  trusted: () => boolean;
};

/** What the IDE shows: the memory files loaded, what went wrong, and the skills and commands found. */
export type MemoryOverview = {
  files: Array<Omit<MemoryFile, "content">>;
  notices: MemoryNotice[];
  skills: SkillDefinition[];
  problems: SkillProblem[];
};

export type MemoryPrefetch = {
  /** The system reminders for the start of the conversation (memory files, skill listing), or null. */
  reminder: string | null;
  /** Notices not reported before in this session (a cut file, a skipped import). */
  notices: MemoryNotice[];
};

/**
 * A session's memory files and skills. `prefetch` runs at the top of every loop iteration. Where the
 * file system can watch (`MemoryFs.watch`), the paths the last load looked at are watched, and a check
 * with no change since costs no system call; after a change (or without a watch) it stats those paths
 * and reloads only what moved. Either way an edit reaches the next request.
 */
export type SessionMemory = {
  prefetch(): Promise<MemoryPrefetch>;
  /** Subdirectory memory above `filePath` not sent yet in this session, rendered for a tool result. */
  nestedFor(filePath: string): Promise<string | null>;
  skills(): Promise<SkillCatalog>;
  /** A skill's body, read fresh. */
  skillBody(skill: SkillDefinition): Promise<string | null>;
  /** Rules granted by skills used in the running prompt. */
  readonly grants: SkillGrants;
  /** The rules skills granted since the last call, for the runner to take back when the prompt ends. */
  releaseGrants(): string[];
  overview(): Promise<MemoryOverview>;
  /** Stops watching the files (the session ended). */
  close(): void;
};

/** Reloads in a row while the files keep changing before the check settles; then the next check stats again. */
const MAX_SETTLE_ATTEMPTS = 3;

export function createSessionMemory(options: SessionMemoryOptions): SessionMemory {
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

  let memory: MemoryLoad | undefined;
  let skills: SkillDiscovery | undefined;
  const nested: MemoryFile[] = [];
  const nestedNotices: MemoryNotice[] = [];
  const checkedDirectories = new Set<string>();
  const reported = new Set<string>();
  let granted: string[] = [];
  let rendered: { memory: MemoryLoad; skills: SkillDiscovery; today: string; reminder: string | null } | undefined;

  /** Which of the two watched sets has a path whose mtime moved: one `mtimes` call for both. */
  const moved = async (
    memoryWatched: ReadonlyMap<string, number | null>,
    skillsWatched: ReadonlyMap<string, number | null>,
  ): Promise<{ memory: boolean; skills: boolean }> => {
    const entries = [...memoryWatched, ...skillsWatched];
    const mtimes = await fs.mtimes(entries.map(([path]) => path));
    const changed = (index: number) => mtimes[index] !== entries[index]![1];
    let memoryMoved = false;
    let skillsMoved = false;
    for (let index = 0; index < entries.length; index++) {
      if (!changed(index)) continue;
      if (index < memoryWatched.size) memoryMoved = true;
      else skillsMoved = true;
    }
    return { memory: memoryMoved, skills: skillsMoved };
  };
  const loadOptions = async () => ({ fs, homeDir: home, allowedRoots: await roots() });
  let watch: MemoryWatch | undefined;
  let closed = false;
  const stopWatching = () => {
    watch?.close();
    watch = undefined;
  };
  const current = async (): Promise<{ memory: MemoryLoad; skills: SkillDiscovery }> => {
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
  const fresh = (notices: readonly MemoryNotice[]) =>
    notices.filter((notice) => {
      const key = `${notice.code}\u0000${notice.path}\u0000${notice.message}`;
      if (reported.has(key)) return false;
      reported.add(key);
      return true;
    });

  return {
    async prefetch() {
      const state = await current();
      const today = options.today();
      if (rendered?.memory !== state.memory || rendered.skills !== state.skills || rendered.today !== today) {
        const blocks = [renderMemoryReminder(state.memory.files, today), renderSkillListing(state.skills.skills)].filter((block) => block !== null);
        rendered = { memory: state.memory, skills: state.skills, today, reminder: blocks.length > 0 ? blocks.join("\n") : null };
      }
      return { reminder: rendered.reminder, notices: fresh(state.memory.notices) };
    },
    async nestedFor(filePath) {
      const file = resolvePosix(root, filePath);
      if (!isWithin(root, file) || file === root) return null;
      const directories: string[] = [];
      for (let dir = dirnamePosix(file); dir !== root && isWithin(root, dir); dir = dirnamePosix(dir)) {
        if (checkedDirectories.has(dir)) break;
        directories.unshift(dir);
      }
      if (directories.length === 0) return null;
      for (const dir of directories) checkedDirectories.add(dir);
      const candidates = directories.flatMap((dir) =>
        [`${dir}/CLAUDE.md`, `${dir}/.claude/CLAUDE.md`, `${dir}/CLAUDE.local.md`].map((path) => ({ path, kind: "nested" as const })),
      );
      const load = await loadMemoryFiles(candidates, await loadOptions());
      const already = new Set([...(memory?.files ?? []), ...nested].map((loaded) => loaded.path));
      const added = load.files.filter((loaded) => !already.has(loaded.path));
      nested.push(...added);
      nestedNotices.push(...load.notices);
      const notes = load.notices.map((notice) => `Note: ${notice.message}`);
      const rendered = renderNestedMemory(added);
      return rendered ? [rendered, ...notes].join("\n") : null;
    },
    async skills() {
      const state = await current();
      return { skills: state.skills.skills, problems: state.skills.problems };
    },
    skillBody: (skill) => readSkillBody(fs, skill),
    grants: {
      mayGrant: (skill) => skill.source === "user" || options.trusted(),
      record: (rules) => {
        granted = [...granted, ...rules];
      },
    },
    releaseGrants() {
      const released = granted;
      granted = [];
      return released;
    },
    async overview() {
      const state = await current();
      return {
        files: [...state.memory.files, ...nested].map(({ content: _content, ...rest }) => rest),
        notices: [...state.memory.notices, ...nestedNotices],
        skills: state.skills.skills,
        problems: state.skills.problems,
      };
    },
    close() {
      closed = true;
      stopWatching();
    },
  };
}

export function sessionMemoryOf(context: Pick<ToolUseContext, "services">): SessionMemory | undefined {
  const candidate = context.services[MEMORY_SERVICE] as Partial<SessionMemory> | undefined;
  if (!candidate || typeof candidate.prefetch !== "function" || typeof candidate.nestedFor !== "function") return undefined;
  return candidate as SessionMemory;
}

/** For the tool pipeline: the subdirectory memory a file tool's call brings in, once per session. */
export async function nestedMemoryForCall(context: Pick<ToolUseContext, "services">, input: unknown): Promise<string[]> {
  const memory = sessionMemoryOf(context);
  const filePath = typeof input === "object" && input !== null && "file_path" in input ? (input as { file_path: unknown }).file_path : undefined;
  if (!memory || typeof filePath !== "string") return [];
  const text = await memory.nestedFor(filePath).catch(() => null);
  return text ? [text] : [];
}
