import picomatch from "picomatch";

/**
 * One glob in gitignore syntax, matched the way ripgrep's `ignore` crate matches it (for .gitignore
 * files and for `--glob` overrides alike): a glob without a slash matches the base name at any depth,
 * one with a slash is anchored to its directory, a trailing slash matches directories only, and a
 * path is tested by itself — never through its parent directories.
 */
export type GitignoreGlob = {
  readonly negated: boolean;
  readonly directoryOnly: boolean;
  /** `relativePath` uses `/` and has no leading `./`. */
  matches(relativePath: string, isDirectory: boolean): boolean;
};

const pictureOptions = { dot: true, noextglob: true, nonegate: true } as const;

export function compileGitignoreGlob(line: string): GitignoreGlob | undefined {
  let pattern = trimTrailingSpaces(line);
  if (pattern === "" || pattern.startsWith("#")) return undefined;
  let negated = false;
  if (pattern.startsWith("!")) {
    negated = true;
    pattern = pattern.slice(1);
  } else if (pattern.startsWith("\\!") || pattern.startsWith("\\#")) {
    pattern = pattern.slice(1);
  }
  let directoryOnly = false;
  if (pattern.endsWith("/") && pattern.length > 1) {
    directoryOnly = true;
    pattern = pattern.slice(0, -1);
  }
  if (pattern === "") return undefined;
  const anchored = pattern.includes("/");
  if (pattern.startsWith("/")) pattern = pattern.slice(1);
  const test = picomatch(pattern, pictureOptions);
  // `dir/**` matches what is inside dir, not dir itself.
  const selfTest = pattern.endsWith("/**") ? picomatch(pattern.slice(0, -3), pictureOptions) : undefined;
  return {
    negated,
    directoryOnly,
    matches(relativePath, isDirectory) {
      if (directoryOnly && !isDirectory) return false;
      const candidate = anchored ? relativePath : baseName(relativePath);
      if (!test(candidate)) return false;
      return selfTest === undefined || !selfTest(candidate);
    },
  };
}

export type GlobDecision = "ignore" | "whitelist" | "none";

/** An ordered list of globs where the last match decides, like one .gitignore file. */
export class GitignoreGlobSet {
  private readonly globs: GitignoreGlob[];

  constructor(lines: Iterable<string>) {
    this.globs = [];
    for (const line of lines) {
      const glob = compileGitignoreGlob(line);
      if (glob !== undefined) this.globs.push(glob);
    }
  }

  static fromText(text: string): GitignoreGlobSet {
    return new GitignoreGlobSet(text.split(/\r?\n/));
  }

  get size(): number {
    return this.globs.length;
  }

  get whitelistCount(): number {
    return this.globs.filter((glob) => glob.negated).length;
  }

  decide(relativePath: string, isDirectory: boolean): GlobDecision {
    for (let index = this.globs.length - 1; index >= 0; index -= 1) {
      const glob = this.globs[index];
      if (glob?.matches(relativePath, isDirectory)) return glob.negated ? "whitelist" : "ignore";
    }
    return "none";
  }
}

function baseName(relativePath: string): string {
  const slash = relativePath.lastIndexOf("/");
  return slash === -1 ? relativePath : relativePath.slice(slash + 1);
}

function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && (line[end - 1] === " " || line[end - 1] === "\t")) {
    if (end >= 2 && line[end - 2] === "\\") break;
    end -= 1;
  }
  return line.slice(0, end);
}
