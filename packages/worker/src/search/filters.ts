import picomatch from "picomatch";
import { WorkspaceError } from "@cairn/core/workspace";
import { GitignoreGlobSet, type GlobDecision } from "./gitignore-glob.ts";
import { ripgrepFileTypes } from "./file-types.ts";

/** Version-control directories never searched or listed, whatever the globs say. */
export const vcsDirectoryExcludes = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"].map((name) => `!${name}`);

/**
 * ripgrep's `--glob` overrides: a plain glob whitelists, `!glob` ignores, the last match wins, and once
 * any plain glob exists a file matching none of them is ignored. Relative to the search directory.
 */
export class OverrideGlobs {
  private readonly set: GitignoreGlobSet;
  private readonly hasWhitelist: boolean;

  readonly globs: readonly string[];

  constructor(globs: readonly string[]) {
    this.globs = globs;
    this.set = new GitignoreGlobSet(globs);
    // In the set a plain glob reads as "ignore"; an override inverts that.
    this.hasWhitelist = this.set.size > this.set.whitelistCount;
  }

  decide(relativePath: string, isDirectory: boolean): GlobDecision {
    if (this.set.size === 0) return "none";
    const decision = this.set.decide(relativePath, isDirectory);
    if (decision === "ignore") return "whitelist";
    if (decision === "whitelist") return "ignore";
    return this.hasWhitelist && !isDirectory ? "ignore" : "none";
  }
}

/** ripgrep's `--type`: a file is kept only if its name matches one of the type's globs. */
export class TypeFilter {
  private readonly test: (name: string) => boolean;

  readonly type: string;

  constructor(type: string) {
    this.type = type;
    const globs = ripgrepFileTypes[type];
    if (globs === undefined) {
      throw new WorkspaceError(
        "invalid_pattern",
        `Unknown file type "${type}". Known types include js, ts, py, rust, go, java, json, md, css, html, sh, yaml.`,
      );
    }
    this.test = picomatch([...globs], { dot: true, noextglob: true, nonegate: true });
  }

  keeps(fileName: string): boolean {
    return this.test(fileName);
  }
}

/**
 * Claude Code's Grep splits `glob` on whitespace, then on commas unless the piece holds a brace
 * alternation; every piece becomes one `--glob`.
 */
export function splitGrepGlob(glob: string | undefined): string[] {
  if (glob === undefined) return [];
  const pieces: string[] = [];
  for (const raw of glob.split(/\s+/)) {
    if (raw === "") continue;
    if (raw.includes("{") && raw.includes("}")) pieces.push(raw);
    else pieces.push(...raw.split(",").filter((piece) => piece !== ""));
  }
  return pieces;
}
