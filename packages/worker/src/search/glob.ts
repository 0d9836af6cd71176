import { stat } from "node:fs/promises";
import picomatch from "picomatch";
import { isAbsolute } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { WorkspaceError } from "@cairn/core/workspace";
import type { GlobResult } from "@cairn/core/workspace";
import { toWorkspaceError } from "../errors.ts";
import type { PathConfiner } from "../fs/confine.ts";
import { OverrideGlobs, vcsDirectoryExcludes } from "./filters.ts";
import { mtimeOf } from "./mtimes.ts";
import { ripgrepBaseArgs, runRipgrep } from "./ripgrep.ts";
import { walkFiles } from "./walk.ts";

export type GlobOptions = { path?: string; limit: number; signal?: AbortSignal };

/**
 * Files matching a glob, newest first, with ignore files always in force. The pattern is read as
 * ripgrep reads a glob (without a slash it matches the name at any depth; with one, the path from the
 * search directory) but it filters the listing instead of being passed as `--glob`: a ripgrep override
 * that matches a directory (`*`, `**` and the like) would bring back everything ignored beneath it.
 * `ripgrep` is the rg executable, or undefined for the JavaScript engine.
 */
export async function globWorkspace(confiner: PathConfiner, ripgrep: string | undefined, pattern: string, options: GlobOptions): Promise<GlobResult> {
  const { base, relativePattern } = await globBase(confiner, pattern, options.path);
  const matches = globMatcher(relativePattern);
  const prefixLength = base.length + 1;
  const files: string[] = [];
  const times = new Map<string, number>();
  // Synchronous stats, a listing chunk at a time while ripgrep writes the next one: a few microseconds
  // each against tens for a thread-pool round trip, and the event loop is held only for one chunk.
  const add = (file: string) => {
    if (!matches(file.slice(prefixLength))) return;
    const mtime = mtimeOf(file);
    if (mtime === undefined) return;
    files.push(file);
    times.set(file, mtime);
  };
  const signal = options.signal;
  if (ripgrep === undefined) {
    const walk = walkFiles({ base, overrides: new OverrideGlobs(vcsDirectoryExcludes), ...(signal === undefined ? {} : { signal }) });
    for await (const file of walk) add(file);
  } else {
    const decoder = new StringDecoder("utf8");
    let pending = "";
    // A file type, unlike --glob, filters files only and after the ignore rules, so it may narrow what
    // ripgrep lists by the pattern's last segment without bringing back anything ignored.
    const lastSegment = basenameFilter(relativePattern);
    const typeArgs = lastSegment === undefined ? [] : ["--type-add", `cairnglob:${lastSegment}`, "--type", "cairnglob"];
    const args = [...ripgrepBaseArgs, "--files", "--null", ...typeArgs, ...vcsDirectoryExcludes.flatMap((glob) => ["--glob", glob]), "--", base];
    await runRipgrep(ripgrep, args, {
      cwd: base,
      ...(signal === undefined ? {} : { signal }),
      onStdout(chunk) {
        const parts = (pending + decoder.write(chunk)).split("\0");
        pending = parts.pop() ?? "";
        for (const part of parts) add(part);
      },
    });
    if (pending !== "") add(pending);
  }
  signal?.throwIfAborted();
  files.sort((left, right) => (times.get(right) ?? 0) - (times.get(left) ?? 0) || (left < right ? -1 : left > right ? 1 : 0));
  const limit = Math.max(0, options.limit);
  return { paths: files.slice(0, limit), truncated: files.length > limit };
}

/** The pattern's last segment, which every match's file name must match, when it is worth passing on. */
function basenameFilter(pattern: string): string | undefined {
  const trimmed = pattern.endsWith("/") ? pattern.slice(0, -1) : pattern;
  const last = trimmed.slice(trimmed.lastIndexOf("/") + 1);
  if (last === "" || last === "*" || last.includes("**") || last.includes(":")) return undefined;
  return last;
}

/** A glob read the ripgrep way: without a slash it matches the base name, with one the relative path. */
function globMatcher(pattern: string): (relativePath: string) => boolean {
  const trimmed = pattern.endsWith("/") ? pattern.slice(0, -1) : pattern;
  const anchored = trimmed.includes("/");
  const test = picomatch(anchored && trimmed.startsWith("/") ? trimmed.slice(1) : trimmed, { dot: true, noextglob: true, nonegate: true });
  return (relativePath) => test(anchored ? relativePath : relativePath.slice(relativePath.lastIndexOf("/") + 1));
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
    if (!(await stat(base)).isDirectory())
      throw new WorkspaceError("not_directory", `Cannot search ${path ?? base}: it is not a directory`, { path: path ?? base });
  } catch (error) {
    throw toWorkspaceError(error, path ?? base, "search");
  }
  return { base, relativePattern };
}
