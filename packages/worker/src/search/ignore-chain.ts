import { readFile, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { GitignoreGlobSet, type GlobDecision } from "./gitignore-glob.ts";

type IgnoreLevel = {
  readonly directory: string;
  readonly hasGit: boolean;
  readonly rgignore: GitignoreGlobSet | undefined;
  readonly ignore: GitignoreGlobSet | undefined;
  readonly gitignore: GitignoreGlobSet | undefined;
  readonly gitExclude: GitignoreGlobSet | undefined;
};

const ignoreFileNames = [".gitignore", ".ignore", ".rgignore", ".git"] as const;

/**
 * The ignore files that apply to a directory, as ripgrep (`--no-require-git`, `--no-ignore-global`)
 * sees them: `.rgignore` beats `.ignore` beats `.gitignore` beats `.git/info/exclude`; within a kind the
 * deepest directory that decides wins; `.gitignore` and the git exclude file stop applying above the
 * nearest directory holding `.git`; directories above the search root count too.
 */
export class IgnoreChain {
  private readonly level: IgnoreLevel | undefined;
  private readonly parent: IgnoreChain | undefined;

  private constructor(level: IgnoreLevel | undefined, parent: IgnoreChain | undefined) {
    this.level = level;
    this.parent = parent;
  }

  static readonly empty = new IgnoreChain(undefined, undefined);

  /** The chain for `base` itself, with every ancestor's ignore files. */
  static async forDirectory(base: string): Promise<IgnoreChain> {
    const directories: string[] = [];
    for (let current = base; ; current = dirname(current)) {
      directories.unshift(current);
      if (dirname(current) === current) break;
    }
    let chain = IgnoreChain.empty;
    for (const directory of directories) chain = await chain.child(directory);
    return chain;
  }

  /** Adds `directory`'s ignore files. `names`, if given, is its listing, which saves probing for absent files. */
  async child(directory: string, names?: ReadonlySet<string>): Promise<IgnoreChain> {
    const has = (name: string) => names === undefined || names.has(name);
    if (names !== undefined && !ignoreFileNames.some((name) => names.has(name))) return this;
    const [gitignore, ignore, rgignore, hasGit] = await Promise.all([
      has(".gitignore") ? readGlobs(join(directory, ".gitignore")) : undefined,
      has(".ignore") ? readGlobs(join(directory, ".ignore")) : undefined,
      has(".rgignore") ? readGlobs(join(directory, ".rgignore")) : undefined,
      has(".git") ? exists(join(directory, ".git")) : false,
    ]);
    const gitExclude = hasGit ? await readGlobs(join(directory, ".git", "info", "exclude")) : undefined;
    if (!hasGit && gitignore === undefined && ignore === undefined && rgignore === undefined) return this;
    return new IgnoreChain({ directory, hasGit, rgignore, ignore, gitignore, gitExclude }, this);
  }

  decide(path: string, isDirectory: boolean): GlobDecision {
    let rgignore: GlobDecision = "none";
    let ignore: GlobDecision = "none";
    let gitignore: GlobDecision = "none";
    let gitExclude: GlobDecision = "none";
    let sawGit = false;
    for (let chain: IgnoreChain | undefined = this; chain?.level !== undefined; chain = chain.parent) {
      const level = chain.level;
      const relative = relativeTo(level.directory, path);
      if (relative === undefined) continue;
      if (rgignore === "none" && level.rgignore !== undefined) rgignore = level.rgignore.decide(relative, isDirectory);
      if (ignore === "none" && level.ignore !== undefined) ignore = level.ignore.decide(relative, isDirectory);
      if (!sawGit) {
        if (gitignore === "none" && level.gitignore !== undefined) gitignore = level.gitignore.decide(relative, isDirectory);
        if (gitExclude === "none" && level.gitExclude !== undefined) gitExclude = level.gitExclude.decide(relative, isDirectory);
      }
      sawGit ||= level.hasGit;
    }
    for (const decision of [rgignore, ignore, gitignore, gitExclude]) if (decision !== "none") return decision;
    return "none";
  }
}

function relativeTo(directory: string, path: string): string | undefined {
  if (directory === "/") return path.length > 1 ? path.slice(1) : undefined;
  if (path.length <= directory.length + 1 || !path.startsWith(directory) || path[directory.length] !== "/") return undefined;
  return path.slice(directory.length + 1);
}

async function readGlobs(path: string): Promise<GitignoreGlobSet | undefined> {
  try {
    const set = GitignoreGlobSet.fromText(await readFile(path, "utf8"));
    return set.size === 0 ? undefined : set;
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
