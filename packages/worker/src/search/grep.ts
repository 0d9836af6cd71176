import { stat } from "node:fs/promises";
import { WorkspaceError } from "@cairn/core/workspace";
import type { GrepQuery, GrepResult } from "@cairn/core/workspace";
import { toWorkspaceError } from "../errors.ts";
import type { PathConfiner } from "../fs/confine.ts";
import { ripgrepFileTypes } from "./file-types.ts";
import { formatGrepResult, type GrepFileHits } from "./grep-format.ts";
import { grepWithJavaScript } from "./grep-javascript.ts";
import { planGrep } from "./grep-plan.ts";
import { grepWithRipgrep } from "./grep-ripgrep.ts";
import { modificationTimes } from "./mtimes.ts";

/** `ripgrep` is the rg executable, or undefined for the JavaScript engine. */
export async function grepWorkspace(confiner: PathConfiner, ripgrep: string | undefined, query: GrepQuery, signal?: AbortSignal): Promise<GrepResult> {
  if (query.pattern === "") throw new WorkspaceError("invalid_pattern", "The search pattern is empty");
  if (query.type !== undefined && ripgrepFileTypes[query.type] === undefined) {
    throw new WorkspaceError(
      "invalid_pattern",
      `Unknown file type "${query.type}". Known types include js, ts, py, rust, go, java, json, md, css, html, sh, yaml.`,
    );
  }
  const base = await confiner.resolve(query.path ?? confiner.root);
  let baseIsFile: boolean;
  try {
    baseIsFile = !(await stat(base)).isDirectory();
  } catch (error) {
    throw toWorkspaceError(error, query.path ?? confiner.root, "search");
  }
  const plan = planGrep(query, base, baseIsFile);
  const hits: GrepFileHits[] = ripgrep === undefined ? await grepWithJavaScript(plan, signal) : await grepWithRipgrep(ripgrep, plan, signal);
  const mtimes =
    plan.mode === "files_with_matches"
      ? await modificationTimes(
          hits.map((file) => file.path),
          signal,
        )
      : new Map<string, number>();
  return formatGrepResult(hits, {
    mode: plan.mode,
    hasContext: plan.before > 0 || plan.after > 0,
    headLimit: plan.headLimit,
    engine: ripgrep === undefined ? "javascript" : "ripgrep",
    mtimeOf: (path) => mtimes.get(path) ?? 0,
  });
}
