// Search speed over the repository's own node_modules: workspace.grep / workspace.glob against running
// ripgrep directly with the same query, plus the JavaScript fallback engine.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createLocalWorkspace } from "@cairn/worker";
import { median, report } from "./report.ts";

const RUNS = 5;
const JS_RUNS = 3;
const WORD = "function";
const root = fileURLToPath(new URL("../../node_modules", import.meta.url));

/** What workspace.grep asks of ripgrep for a content search (Claude Code's Grep flags). */
const grepArgs = [
  "--no-config",
  "--hidden",
  "--no-require-git",
  "--no-ignore-global",
  "--color",
  "never",
  "--glob",
  "!.git",
  "--glob",
  "!.svn",
  "--glob",
  "!.hg",
  "--glob",
  "!.bzr",
  "--glob",
  "!.jj",
  "--glob",
  "!.sl",
  "--line-number",
  "--max-columns",
  "500",
  "--regexp",
  WORD,
  "--",
  root,
];
const globArgs = ["--files", "--glob", "*.js", "--", root];

/** Runs ripgrep and reads all of its output, as a caller must; returns milliseconds. */
function timeRipgrep(args: string[]): Promise<{ ms: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn("rg", args, { cwd: root, stdio: ["ignore", "pipe", "ignore"] });
    let bytes = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    child.once("error", reject);
    child.once("close", () => resolve({ ms: performance.now() - started, bytes }));
  });
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

export default async function run(): Promise<void> {
  const workspace = await createLocalWorkspace({ root, sandbox: { enabled: false } });
  const javascript = await createLocalWorkspace({ root, sandbox: { enabled: false }, forceJsSearch: true });
  try {
    const query = { pattern: WORD, outputMode: "content" as const };
    // Warm the page cache and the JIT once for each path before measuring.
    const sample = await workspace.grep(query);
    await timeRipgrep(grepArgs);
    await workspace.glob("**/*.js", { limit: 100 });
    await timeRipgrep(globArgs);

    const grepWorkspace: number[] = [];
    const grepRipgrep: number[] = [];
    const grepPlain: number[] = [];
    const globWorkspace: number[] = [];
    const globRipgrep: number[] = [];
    // Interleaved so that a busy machine slows both sides alike.
    for (let round = 0; round < RUNS; round++) {
      grepWorkspace.push(await timed(() => workspace.grep(query)));
      grepRipgrep.push((await timeRipgrep(grepArgs)).ms);
      grepPlain.push((await timeRipgrep(["-n", WORD, root])).ms);
      globWorkspace.push(await timed(() => workspace.glob("**/*.js", { limit: 100 })));
      globRipgrep.push((await timeRipgrep(globArgs)).ms);
    }
    const grepJavaScript: number[] = [];
    for (let round = 0; round < JS_RUNS; round++) grepJavaScript.push(await timed(() => javascript.grep(query)));

    report("grep.matched_lines", sample.lines.length, "lines");
    report("grep.workspace_ms", median(grepWorkspace), "ms");
    report("grep.rg_ms", median(grepRipgrep), "ms");
    report("grep.rg_plain_ms", median(grepPlain), "ms");
    report("grep.ratio_vs_rg", median(grepWorkspace) / median(grepRipgrep), "x");
    report("grep.js_fallback_ms", median(grepJavaScript), "ms");
    report("grep.js_ratio_vs_rg", median(grepJavaScript) / median(grepRipgrep), "x");
    report("glob.workspace_ms", median(globWorkspace), "ms");
    report("glob.rg_files_ms", median(globRipgrep), "ms");
    report("glob.ratio_vs_rg", median(globWorkspace) / median(globRipgrep), "x");
  } finally {
    await workspace.dispose();
    await javascript.dispose();
  }
}
