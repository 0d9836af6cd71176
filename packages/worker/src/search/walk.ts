import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { IgnoreChain } from "./ignore-chain.ts";
import type { OverrideGlobs, TypeFilter } from "./filters.ts";

export type WalkOptions = {
  /** A real directory. */
  base: string;
  overrides: OverrideGlobs;
  types?: TypeFilter;
  signal?: AbortSignal;
};

/**
 * Every file under `base` that ripgrep (`--hidden --no-require-git --no-ignore-global`, no `-L`) would
 * visit: symbolic links and special files are skipped, overrides decide first, then ignore files, then types.
 */
export async function* walkFiles(options: WalkOptions): AsyncGenerator<string> {
  const { base, overrides, types, signal } = options;
  const stack: { directory: string; chain: IgnoreChain | undefined }[] = [{ directory: base, chain: undefined }];
  let baseChain: IgnoreChain | undefined;
  while (stack.length > 0) {
    signal?.throwIfAborted();
    const next = stack.pop();
    if (next === undefined) break;
    let entries: Dirent[];
    try {
      entries = await readdir(next.directory, { withFileTypes: true });
    } catch {
      continue; // ripgrep reports unreadable directories on stderr and goes on
    }
    const names = new Set(entries.map((entry) => entry.name));
    let chain: IgnoreChain;
    if (next.chain === undefined) {
      baseChain ??= await IgnoreChain.forDirectory(base);
      chain = baseChain;
    } else {
      chain = await next.chain.child(next.directory, names);
    }
    const prefix = next.directory === "/" ? "/" : `${next.directory}/`;
    const relativePrefix = next.directory === base ? "" : `${next.directory.slice(base.length + 1)}/`;
    for (const entry of entries) {
      const isDirectory = entry.isDirectory();
      if (!isDirectory && !entry.isFile()) continue;
      const path = prefix + entry.name;
      const decision = overrides.decide(relativePrefix + entry.name, isDirectory);
      if (decision === "ignore") continue;
      if (decision === "none") {
        if (chain.decide(path, isDirectory) === "ignore") continue;
        if (!isDirectory && types !== undefined && !types.keeps(entry.name)) continue;
      }
      if (isDirectory) stack.push({ directory: path, chain });
      else yield path;
    }
  }
}
