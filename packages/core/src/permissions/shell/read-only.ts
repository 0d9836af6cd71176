import { assignmentProblem, commandName, dangerousCommandReason, ownEntry, unwrapCommand } from "./command-safety.ts";
import type { ShellParser } from "./shell-parser.ts";
import type { ShellAnalysis, ShellWord, SimpleCommand } from "./types.ts";
import { isFileWriteRedirect } from "./write-targets.ts";

type ArgsCheck = (args: readonly ShellWord[]) => boolean;

const anyArgs: ArgsCheck = () => true;
const noArgs: ArgsCheck = (args) => args.length === 0;
/** Commands whose flags decide whether they write: every word must be known and no flag may write. */
const withoutFlags =
  (forbidden: readonly string[]): ArgsCheck =>
  (args) =>
    args.every((word) => word.literal && !forbidden.some((flag) => usesFlag(word.value, flag)));

/** `--long`, `--long=x`; a short flag also inside a cluster (`-uo` holds `-o`). */
function usesFlag(word: string, flag: string): boolean {
  if (flag.startsWith("--")) return word === flag || word.startsWith(`${flag}=`);
  return !word.startsWith("--") && word.startsWith("-") && word.slice(1).includes(flag.slice(1));
}
const positionalCount = (args: readonly ShellWord[]): number => args.filter((word) => !word.value.startsWith("-")).length;

const gitSubcommands: Record<string, ArgsCheck> = {
  status: anyArgs,
  diff: anyArgs,
  log: anyArgs,
  show: anyArgs,
  blame: anyArgs,
  shortlog: anyArgs,
  describe: anyArgs,
  "rev-parse": anyArgs,
  "ls-files": anyArgs,
  "ls-tree": anyArgs,
  "cat-file": anyArgs,
  grep: withoutFlags(["-O", "--open-files-in-pager"]),
  // Listing forms only: a positional argument would create or rename a branch or tag.
  branch: (args) =>
    args.every(
      (word) =>
        word.literal &&
        ["-a", "-r", "-v", "-vv", "-l", "--list", "--all", "--remotes", "--show-current", "--verbose", "--no-color", "--color"].includes(word.value),
    ),
  tag: (args) => args.every((word) => word.literal && ["-l", "--list", "-n"].includes(word.value)),
  remote: (args) => args.every((word) => word.literal && ["-v", "--verbose"].includes(word.value)),
};

const gitWriteFlags = ["--output", "--ext-diff", "--exec", "--upload-pack"];

const readOnlyCommands: Record<string, ArgsCheck> = {
  ls: anyArgs,
  cat: anyArgs,
  head: anyArgs,
  tail: anyArgs,
  wc: anyArgs,
  grep: anyArgs,
  egrep: anyArgs,
  fgrep: anyArgs,
  rg: withoutFlags(["--pre", "--pre-glob"]),
  find: anyArgs, // -exec, -delete and computed words are refused by dangerousCommandReason
  pwd: anyArgs,
  echo: anyArgs,
  printf: withoutFlags(["-v"]),
  true: anyArgs,
  false: anyArgs,
  test: anyArgs,
  stat: anyArgs,
  file: anyArgs,
  du: anyArgs,
  df: anyArgs,
  tree: withoutFlags(["-o"]),
  basename: anyArgs,
  dirname: anyArgs,
  realpath: anyArgs,
  readlink: anyArgs,
  which: anyArgs,
  type: anyArgs,
  whoami: noArgs,
  id: anyArgs,
  uname: anyArgs,
  hostname: noArgs,
  date: withoutFlags(["-s", "--set"]),
  env: noArgs,
  printenv: anyArgs,
  nl: anyArgs,
  cut: anyArgs,
  tr: anyArgs,
  sort: withoutFlags(["-o", "--output", "--compress-program"]),
  uniq: (args) => positionalCount(args) <= 1,
  diff: anyArgs,
  cmp: anyArgs,
  comm: anyArgs,
  tac: anyArgs,
  rev: anyArgs,
  paste: anyArgs,
  column: anyArgs,
  fold: anyArgs,
  seq: anyArgs,
  od: anyArgs,
  hexdump: anyArgs,
  strings: anyArgs,
  md5sum: anyArgs,
  sha1sum: anyArgs,
  sha256sum: anyArgs,
  cksum: anyArgs,
  jq: anyArgs,
  git: (args) => {
    const subcommand = args[0];
    if (!subcommand?.literal) return false;
    const check = ownEntry(gitSubcommands, subcommand.value);
    return check !== undefined && withoutFlags(gitWriteFlags)(args.slice(1)) && check(args.slice(1));
  },
};

/** Names in the read-only list, for documentation and tests. */
export const readOnlyCommandNames: readonly string[] = Object.keys(readOnlyCommands);

/**
 * True when the whole parsed command only reads: every simple command is on the read-only list
 * with harmless arguments, nothing is hidden in substitutions, no wrapper or variable changes
 * what runs, and nothing is written (output to /dev/null and `2>&1` are fine).
 */
export function isReadOnlyAnalysis(analysis: ShellAnalysis): boolean {
  if (analysis.problems.length > 0 || analysis.commands.length === 0) return false;
  if (analysis.redirects.some(isFileWriteRedirect)) return false;
  return analysis.commands.every(isReadOnlySimpleCommand);
}

/** One simple command on its own (redirections are judged for the whole command line). */
export function isReadOnlySimpleCommand(command: SimpleCommand): boolean {
  if (command.nested) return false;
  const unwrapped = unwrapCommand(command);
  if (dangerousCommandReason(unwrapped) || assignmentProblem(unwrapped.assignments)) return false;
  const head = unwrapped.argv[0];
  // Only bare names: `/tmp/ls` or `./cat` could be anything.
  if (!head?.literal || head.value.includes("/") || commandName(head) !== head.value) return false;
  const check = ownEntry(readOnlyCommands, head.value);
  return check !== undefined && check(unwrapped.argv.slice(1));
}

/** Synchronous, for `Bash.isConcurrencySafe`/`isReadOnly` once the parser is initialised. */
export function isReadOnlyBashCommand(parser: ShellParser, command: string): boolean {
  return isReadOnlyAnalysis(parser.analyze(command));
}
