import type { MemoryFs } from "../memory/port.ts";
import { parseSkillFile, type SkillDefinition, type SkillProblem } from "./definition.ts";

export type SkillRoots = {
  /** `<dir>/<name>/SKILL.md`, in precedence order (the first of a name wins). */
  skills: ReadonlyArray<{ dir: string; source: "project" | "user" }>;
  /** Legacy `<dir>/<name>.md` command files, after the skills. */
  commands: ReadonlyArray<{ dir: string; source: "project" | "user" }>;
};

export type SkillCatalog = { skills: SkillDefinition[]; problems: SkillProblem[] };
export type SkillDiscovery = SkillCatalog & { watched: Map<string, number | null> };

/**
 * Finds skills and legacy commands. A broken file becomes a problem with its reason and the others
 * still load. `watched` holds the mtime of every directory and file looked at, so a later check by
 * mtime notices an added, removed or edited skill.
 */
export async function discoverSkills(fs: MemoryFs, roots: SkillRoots): Promise<SkillDiscovery> {
  const discovery: SkillDiscovery = { skills: [], problems: [], watched: new Map() };
  const taken = new Set<string>();
  const watch = async (path: string) => {
    const stat = await fs.stat(path);
    discovery.watched.set(path, stat?.mtimeMs ?? null);
    return stat;
  };
  const add = async (text: string | null, origin: Parameters<typeof parseSkillFile>[1]) => {
    if (text === null) return;
    const parsed = await parseSkillFile(text, origin);
    if (!parsed.ok) {
      discovery.problems.push(parsed.problem);
      return;
    }
    if (taken.has(parsed.skill.name)) return;
    taken.add(parsed.skill.name);
    discovery.skills.push(parsed.skill);
  };
  for (const root of roots.skills) {
    if (!(await watch(root.dir))?.isDirectory) continue;
    const names = ((await fs.listDirectories(root.dir)) ?? []).sort();
    const found = await Promise.all(
      names.map(async (name) => {
        const directory = `${root.dir}/${name}`;
        const path = `${directory}/SKILL.md`;
        const stat = await watch(path);
        // A directory without its SKILL.md yet: watch it, so the file's arrival is noticed.
        if (!stat) await watch(directory);
        return { name, directory, path, text: stat && !stat.isDirectory ? await fs.readText(path) : null };
      }),
    );
    for (const entry of found) await add(entry.text, { name: entry.name, kind: "skill", source: root.source, path: entry.path, directory: entry.directory });
  }
  for (const root of roots.commands) {
    if (!(await watch(root.dir))?.isDirectory) continue;
    const files = ((await fs.listFiles(root.dir)) ?? []).filter((file) => file.endsWith(".md")).sort();
    const found = await Promise.all(
      files.map(async (file) => {
        const path = `${root.dir}/${file}`;
        await watch(path);
        return { name: file.slice(0, -3), path, text: await fs.readText(path) };
      }),
    );
    for (const entry of found) await add(entry.text, { name: entry.name, kind: "command", source: root.source, path: entry.path, directory: root.dir });
  }
  return discovery;
}

/** The body of a skill or command, read fresh so an edit since discovery counts. */
export async function readSkillBody(fs: MemoryFs, skill: SkillDefinition): Promise<string | null> {
  const text = await fs.readText(skill.path);
  if (text === null) return null;
  const parsed = await parseSkillFile(text, skill);
  return parsed.ok ? parsed.body : null;
}
