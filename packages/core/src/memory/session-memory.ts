import { dirnamePosix, isWithin, resolvePosix } from "../permissions/posix-path.ts";
import type { SkillDefinition, SkillProblem } from "../skills/definition.ts";
import { readSkillBody, type SkillCatalog, type SkillDiscovery } from "../skills/discover.ts";
import type { SkillGrants } from "../skills/invoke.ts";
import type { ToolUseContext } from "../tools/tool.ts";
import { loadMemoryFiles, type MemoryLoad } from "./load.ts";
import { createMemorySource, type MemorySource, type MemorySourceOptions } from "./memory-source.ts";
import type { MemoryFile, MemoryNotice } from "./port.ts";
import { renderMemoryReminder, renderNestedMemory, renderSkillListing } from "./render.ts";

export const MEMORY_SERVICE = "memory";

/** The workspace's memory files and skills shared with other sessions (`source`), or where to load and watch them for this session alone. */
export type SessionMemoryOptions = ({ source: MemorySource } | MemorySourceOptions) & {
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
 * A session's memory files and skills. `prefetch` runs at the top of every loop iteration and asks the
 * `MemorySource` (watched files: a check with no change since costs no system call; an edit reaches the
 * next request). Subdirectory memory, the notices already reported and skill grants are the session's own.
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

export function createSessionMemory(options: SessionMemoryOptions): SessionMemory {
  // A source of its own, unless the server shares one among its sessions (then closing the session leaves it open).
  const shared = "source" in options;
  const source = "source" in options ? options.source : createMemorySource(options);
  const { fs } = source;
  const root = source.workspaceRoot;
  const nested: MemoryFile[] = [];
  const nestedNotices: MemoryNotice[] = [];
  const checkedDirectories = new Set<string>();
  const reported = new Set<string>();
  let granted: string[] = [];
  let rendered: { memory: MemoryLoad; skills: SkillDiscovery; today: string; reminder: string | null } | undefined;
  /** The memory files as this session last read them (subdirectory memory skips what they hold). */
  let seen: MemoryLoad | undefined;
  const current = async () => {
    const state = await source.current();
    seen = state.memory;
    return state;
  };
  const loadOptions = source.loadOptions;
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
      const already = new Set([...(seen?.files ?? []), ...nested].map((loaded) => loaded.path));
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
      if (!shared) source.close();
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
