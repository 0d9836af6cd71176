import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { WorkspaceError } from "@cairn/core";
import type { GlobResult } from "@cairn/core";
import { toWorkspaceError } from "../errors.ts";
import type { PathConfiner } from "../fs/confine.ts";
import { OverrideGlobs, vcsDirectoryExcludes } from "./filters.ts";
import { modificationTimes } from "./mtimes.ts";
import { ripgrepBaseArgs, runRipgrep } from "./ripgrep.ts";
import { walkFiles } from "./walk.ts";

export type GlobOptions = { path?: string; limit: number; signal?: AbortSignal };

/**
 * Files matching a glob (ripgrep `--glob` semantics, relative to the search directory), respecting
 * ignore files, newest first. `ripgrep` is the rg executable, or undefined for the JavaScript engine.
 */
export async function globWorkspace(confiner: PathConfiner, ripgrep: string | undefined, pattern: string, options: GlobOptions): Promise<GlobResult> {
  const { base, relativePattern } = await globBase(confiner, pattern, options.path);
  const globs = [relativePattern, ...vcsDirectoryExcludes];
  const signal = options.signal;
  const files: string[] = [];
  if (ripgrep === undefined) {
    const walk = walkFiles({ base, overrides: new OverrideGlobs(globs), ...(signal === undefined ? {} : { signal }) });
    for await (const file of walk) files.push(file);
  } else {
    const decoder = new StringDecoder("utf8");
    let pending = "";
    const args = [...ripgrepBaseArgs, "--files", "--null", ...globs.flatMap((glob) => ["--glob", glob]), "--", base];
    await runRipgrep(ripgrep, args, {
      cwd: base,
      ...(signal === undefined ? {} : { signal }),
      onStdout(chunk) {
        const parts = (pending + decoder.write(chunk)).split("\0");
        pending = parts.pop() ?? "";
        for (const part of parts) files.push(part);
      },
    });
    if (pending !== "") files.push(pending);
  }
  const mtimes = await modificationTimes(files, signal);
  const present = files.filter((file) => mtimes.has(file));
  present.sort((left, right) => (mtimes.get(right) ?? 0) - (mtimes.get(left) ?? 0) || (left < right ? -1 : left > right ? 1 : 0));
  const limit = Math.max(0, options.limit);
  return { paths: present.slice(0, limit), truncated: present.length > limit };
}

async function globBase(confiner: PathConfiner, pattern: string, path: string | undefined): Promise<{ base: string; relativePattern: string }> {
  if (pattern === "") throw new WorkspaceError("invalid_pattern", "The glob pattern is empty");
  let base = await confiner.resolve(path ?? confiner.root);
  let relativePattern = pattern;
  if (isAbsolute(pattern)) {
    // An absolute pattern: its literal leading directories become the search directory.
    const parts = pattern.split("/");
    const firstMagic = parts.findIndex((part) => /[*?[\]{}]/.test(part));
    const literal = parts.slice(0, firstMagic === -1 ? parts.length - 1 : firstMagic).join("/") || "/";
    base = await confiner.resolve(literal);
    relativePattern = parts.slice(firstMagic === -1 ? parts.length - 1 : firstMagic).join("/");
  }
  if (relativePattern.split("/").includes("..")) throw new WorkspaceError("outside_workspace", `The glob ${pattern} reaches outside the search directory`);
  try {
    if (!(await stat(base)).isDirectory()) throw new WorkspaceError("not_directory", `Cannot search ${path ?? base}: it is not a directory`, { path: path ?? base });
  } catch (error) {
    throw toWorkspaceError(error, path ?? base, "search");
  }
  return { base, relativePattern };
}
