import { fallbackSegments } from "./bash-specifier.ts";
import { commandName, unwrapCommand } from "./command-safety.ts";
import type { ShellAnalysis, ShellWord, SimpleCommand } from "./types.ts";

// Commands that run their arguments as another command (after options we do not try to model).
const runners = new Set([
  "exec",
  "command",
  "builtin",
  "sudo",
  "doas",
  "su",
  "nohup",
  "xargs",
  "parallel",
  "watch",
  "time",
  "nice",
  "timeout",
  "stdbuf",
  "env",
  "setsid",
  "ionice",
  "chroot",
  "flock",
]);
const shells = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"]);
const findActions = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const MAX_DEPTH = 3;
const MAX_SUFFIXES = 6;

type Analyze = (command: string) => ShellAnalysis;

function withBasename(argv: ShellWord[]): ShellWord[][] {
  const head = argv[0];
  if (!head?.literal || !head.value.includes("/")) return [argv];
  const name = commandName(head);
  return [argv, [{ ...head, value: name }, ...argv.slice(1)]];
}

/** Strings a shell would run as code: `sh -c <string>`, `eval <words>`. */
function embeddedScripts(argv: readonly ShellWord[]): string[] {
  const name = commandName(argv[0]);
  if (name === "eval")
    return [
      argv
        .slice(1)
        .map((word) => word.value)
        .join(" "),
    ];
  if (!shells.has(name)) return [];
  const flagIndex = argv.findIndex((word, index) => index > 0 && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(word.value));
  const script = flagIndex === -1 ? undefined : argv[flagIndex + 1];
  return script ? [script.value] : [];
}

function innerArgvs(argv: ShellWord[]): ShellWord[][] {
  const name = commandName(argv[0]);
  const out: ShellWord[][] = [];
  if (runners.has(name)) {
    // Every suffix that starts with a plain word: `sudo -u root rm x` yields `root rm x` and `rm x`.
    for (let index = 1; index < argv.length && index <= MAX_SUFFIXES; index++) {
      if (!argv[index]!.value.startsWith("-")) out.push(argv.slice(index));
    }
  }
  if (name === "find") {
    argv.forEach((word, index) => {
      if (!findActions.has(word.value)) return;
      const end = argv.findIndex((candidate, at) => at > index && (candidate.value === ";" || candidate.value === "+"));
      out.push(argv.slice(index + 1, end === -1 ? undefined : end));
    });
  }
  return out.filter((inner) => inner.length > 0);
}

/**
 * Every argv a deny or ask rule should be tried against: each simple command (nested ones too),
 * without wrappers, by the basename of an absolute path, what runners (`sudo`, `xargs`, `find
 * -exec`) would run, scripts given to `sh -c` and `eval` (parsed again), and rough text segments
 * when the parse had problems. Over-matching here only turns an allow into a deny or an ask.
 */
export function denyCandidateArgvs(analysis: ShellAnalysis, analyze?: Analyze, depth = 0): ShellWord[][] {
  const out: ShellWord[][] = [];
  const visit = (argv: ShellWord[], level: number): void => {
    for (const variant of withBasename(argv)) out.push(variant);
    if (level >= MAX_DEPTH) return;
    for (const inner of innerArgvs(argv)) visit(inner, level + 1);
    for (const script of embeddedScripts(argv)) {
      if (analyze && depth < MAX_DEPTH) out.push(...denyCandidateArgvs(analyze(script), analyze, depth + 1));
      else out.push(...fallbackSegments(script));
    }
  };
  for (const command of analysis.commands as SimpleCommand[]) {
    visit(command.argv, depth);
    const unwrapped = unwrapCommand(command);
    if (unwrapped.argv !== command.argv) visit(unwrapped.argv, depth);
  }
  if (analysis.problems.length > 0) out.push(...fallbackSegments(analysis.command));
  return out;
}
