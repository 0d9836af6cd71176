import { StringDecoder } from "node:string_decoder";
import { dirname } from "node:path";
import { WorkspaceError } from "@cairn/core/workspace";
import { MAX_COLUMNS, groupSeparator, type GrepFileHits } from "./grep-format.ts";
import type { GrepPlan } from "./grep-plan.ts";
import { ripgrepBaseArgs, runRipgrep } from "./ripgrep.ts";

export function ripgrepGrepArgs(plan: GrepPlan): string[] {
  // Content is asked for with --heading: each file's path once, not on every line, halves what is parsed.
  const args: string[] = [...ripgrepBaseArgs, "--null", "--with-filename", plan.mode === "content" ? "--heading" : "--no-heading"];
  if (plan.caseInsensitive) args.push("--ignore-case");
  if (plan.multiline) args.push("--multiline", "--multiline-dotall");
  for (const glob of plan.globs) args.push("--glob", glob);
  if (plan.type !== undefined) args.push("--type", plan.type);
  switch (plan.mode) {
    case "files_with_matches":
      args.push("--files-with-matches");
      break;
    case "count":
      args.push("--count");
      break;
    case "content":
      args.push("--line-number", "--max-columns", String(MAX_COLUMNS));
      if (plan.before > 0) args.push("--before-context", String(plan.before));
      if (plan.after > 0) args.push("--after-context", String(plan.after));
      break;
  }
  args.push("--regexp", plan.pattern, "--", plan.base);
  return args;
}

/** Runs ripgrep and parses its `--null` output into per-file hits as it streams in. */
export async function grepWithRipgrep(ripgrep: string, plan: GrepPlan, signal?: AbortSignal): Promise<GrepFileHits[]> {
  const files = new Map<string, GrepFileHits>();
  const fileFor = (path: string) => {
    let file = files.get(path);
    if (file === undefined) {
      file = { path, count: 0, lines: [] };
      files.set(path, file);
    }
    return file;
  };
  const decoder = new StringDecoder("utf8");
  let pending = "";
  const separator = plan.mode === "files_with_matches" ? "\0" : "\n";
  const parseRecord = recordParser(plan, fileFor);
  const exit = await runRipgrep(ripgrep, ripgrepGrepArgs(plan), {
    cwd: plan.baseIsFile ? dirname(plan.base) : plan.base,
    ...(signal === undefined ? {} : { signal }),
    onStdout(chunk) {
      const text = decoder.write(chunk);
      let end = text.indexOf(separator);
      if (end === -1) {
        pending += text;
        return;
      }
      // Only the record split across chunks is pieced together; the rest are slices of this chunk.
      parseRecord(pending + text.slice(0, end));
      let start = end + 1;
      for (end = text.indexOf(separator, start); end !== -1; end = text.indexOf(separator, start)) {
        parseRecord(text.slice(start, end));
        start = end + 1;
      }
      pending = text.slice(start);
    },
  });
  const rest = pending + decoder.end();
  if (rest !== "") parseRecord(rest);
  // Exit 2 also reports unreadable files beside real results (the JavaScript engine skips those too);
  // only a rejected query is an error. The search path itself was checked before ripgrep started.
  if (exit.exitCode === 2) {
    const failure = ripgrepFailure(plan, exit.stderr);
    if (failure.code === "invalid_pattern") throw failure;
  }
  return [...files.values()];
}

function recordParser(plan: GrepPlan, fileFor: (path: string) => GrepFileHits): (record: string) => void {
  switch (plan.mode) {
    case "files_with_matches":
      return (record) => {
        if (record !== "") fileFor(record).count = 1;
      };
    case "count":
      return (record) => {
        const nul = record.lastIndexOf("\0");
        if (nul === -1) return;
        fileFor(record.slice(0, nul)).count = Number(record.slice(nul + 1));
      };
    case "content": {
      // `path\0` opens a file's block on the same line as its first record; an empty line closes it.
      // Records are `12:text` or `13-context`, and `--` between groups: already the final format but for the path.
      let file: GrepFileHits | undefined;
      let matchPrefix = "";
      let contextPrefix = "";
      return (record) => {
        let line = record;
        if (file === undefined) {
          const nul = line.indexOf("\0");
          if (nul === -1) return;
          file = fileFor(line.slice(0, nul));
          matchPrefix = `${file.path}:`;
          contextPrefix = `${file.path}-`;
          line = line.slice(nul + 1);
        }
        if (line === "") {
          file = undefined;
          return;
        }
        if (line === groupSeparator) {
          file.lines.push(groupSeparator);
          return;
        }
        let index = 0;
        for (let code = line.charCodeAt(0); code >= 48 && code <= 57; code = line.charCodeAt(index)) index += 1;
        if (index === 0) return; // a "binary file matches" notice
        const isMatch = line.charCodeAt(index) === 58; // ":"
        file.lines.push((isMatch ? matchPrefix : contextPrefix) + (plan.lineNumbers ? line : line.slice(index + 1)));
        if (isMatch) file.count += 1;
      };
    }
  }
}

function ripgrepFailure(plan: GrepPlan, stderr: string): WorkspaceError {
  const message = stderr.trim().replace(/^rg: /, "");
  const rejected = /regex parse error|error parsing glob|unrecognized file type|is not allowed in a regex/i.test(message);
  return new WorkspaceError(
    rejected ? "invalid_pattern" : "io_error",
    `Search for ${JSON.stringify(plan.pattern)} failed: ${message || "ripgrep exited with status 2"}`,
  );
}
