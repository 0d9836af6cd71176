import type { ShellAssignment, ShellWord, SimpleCommand } from "./types.ts";

/** A simple command with leading wrappers (`timeout 5`, `nice`, `env A=1`, …) peeled off. */
export type UnwrappedCommand = {
  argv: ShellWord[];
  /** Prefix assignments plus those given to `env`. */
  assignments: ShellAssignment[];
  wrappers: string[];
  /** Set when a wrapper's own arguments could not be read statically. */
  problem?: string;
};

/** A record lookup that ignores the prototype (`constructor` is not a command we know). */
export function ownEntry<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

export function commandName(word: ShellWord | undefined): string {
  if (!word) return "";
  const slash = word.value.lastIndexOf("/");
  return slash === -1 ? word.value : word.value.slice(slash + 1);
}

// Wrappers that run their operand as a command: option words to skip, and how many values follow.
type WrapperSpec = { optionsWithValue: readonly string[]; positionalBeforeCommand: number };
const wrappers: Record<string, WrapperSpec> = {
  time: { optionsWithValue: ["-f", "-o"], positionalBeforeCommand: 0 },
  nohup: { optionsWithValue: [], positionalBeforeCommand: 0 },
  nice: { optionsWithValue: ["-n"], positionalBeforeCommand: 0 },
  timeout: { optionsWithValue: ["-s", "-k"], positionalBeforeCommand: 1 },
  stdbuf: { optionsWithValue: ["-i", "-o", "-e"], positionalBeforeCommand: 0 },
  env: { optionsWithValue: ["-u", "-C"], positionalBeforeCommand: 0 },
};

/** Peels `time`, `nohup`, `nice`, `timeout`, `stdbuf` and `env` so rules and checks see the real command. */
export function unwrapCommand(command: Pick<SimpleCommand, "argv" | "assignments">): UnwrappedCommand {
  let argv = command.argv;
  const assignments = [...command.assignments];
  const seen: string[] = [];
  for (let depth = 0; depth < 8; depth += 1) {
    const name = argv[0]?.literal ? argv[0].value : undefined;
    const spec = name === undefined ? undefined : ownEntry(wrappers, name);
    if (!name || !spec) break;
    let index = 1;
    let positional = spec.positionalBeforeCommand;
    while (index < argv.length) {
      const word = argv[index]!;
      if (!word.literal) return { argv, assignments, wrappers: seen, problem: `cannot read the arguments of ${name}` };
      const value = word.value;
      if (value === "--") {
        index += 1;
        break;
      }
      if (name === "env" && (value === "-S" || value.startsWith("--split-string") || value.startsWith("-S"))) {
        return { argv, assignments, wrappers: seen, problem: "env -S splits a string into a command" };
      }
      if (value.startsWith("-") && value !== "-") {
        index += spec.optionsWithValue.includes(value) ? 2 : 1;
        continue;
      }
      if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) {
        const equals = value.indexOf("=");
        assignments.push({ name: value.slice(0, equals), value: { value: value.slice(equals + 1), literal: true, raw: word.raw } });
        index += 1;
        continue;
      }
      if (positional > 0) {
        positional -= 1;
        index += 1;
        continue;
      }
      break;
    }
    if (index >= argv.length) break; // `env` alone, `time` alone: the wrapper is the command
    seen.push(name);
    argv = argv.slice(index);
  }
  return { argv, assignments, wrappers: seen };
}

// Variables that change no code path a command takes (no preloads, pagers, editors or PATH).
const safeVariableNames = new Set([
  "CI",
  "DEBUG",
  "FORCE_COLOR",
  "NO_COLOR",
  "TERM",
  "TZ",
  "LANG",
  "LANGUAGE",
  "NODE_ENV",
  "RUST_BACKTRACE",
  "RUST_LOG",
  "PYTHONUNBUFFERED",
  "PYTHONDONTWRITEBYTECODE",
  "GOOS",
  "GOARCH",
  "CGO_ENABLED",
  "COLUMNS",
  "LINES",
]);

export function assignmentProblem(assignments: readonly ShellAssignment[]): string | undefined {
  for (const assignment of assignments) {
    const safeName = safeVariableNames.has(assignment.name) || assignment.name.startsWith("LC_");
    if (!safeName) return `setting ${assignment.name} can change what the command runs`;
    if (!assignment.value.literal) return `the value of ${assignment.name} is computed at run time`;
  }
  return undefined;
}

const shells = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "busybox"]);

const alwaysDangerous: Record<string, string> = {
  eval: "eval runs a string as a command",
  exec: "exec replaces the shell",
  source: "source runs a script in the shell",
  ".": "source runs a script in the shell",
  xargs: "xargs runs commands built from its input",
  parallel: "parallel runs commands built from its input",
  sudo: "sudo runs a command as another user",
  su: "su runs a command as another user",
  doas: "doas runs a command as another user",
  pkexec: "pkexec runs a command as another user",
  builtin: "builtin runs a shell builtin by name",
  alias: "alias changes what later commands run",
  unalias: "unalias changes what later commands run",
  hash: "hash changes what later commands run",
  enable: "enable changes the shell's builtins",
  trap: "trap runs a command on a signal",
  watch: "watch runs a command repeatedly",
};

const findActions = new Set(["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"]);

/**
 * Why this command may never be allowed by a prefix rule (it runs other code or rewrites the
 * shell's state), or undefined. Applied to the unwrapped command.
 */
export function dangerousCommandReason(command: UnwrappedCommand): string | undefined {
  if (command.problem) return command.problem;
  const name = commandName(command.argv[0]);
  const known = ownEntry(alwaysDangerous, name);
  if (known) return known;
  if (name === "command" && !command.argv.slice(1).some((word) => word.value === "-v" || word.value === "-V")) {
    return "command runs another command by name";
  }
  if (shells.has(name)) {
    const args = command.argv.slice(1);
    if (name === "busybox") return "busybox runs applets, shells included";
    // Any `-c`/`-s`/`-i` anywhere (even after the script, which is only a false positive), any
    // computed word, or no script operand at all (commands come from stdin, e.g. a heredoc).
    if (args.some((word) => !word.literal || /^[-+][a-zA-Z]*[cis]/.test(word.value) || /^--(init-file|rcfile)/.test(word.value))) {
      return `${name} -c runs a string as a command`;
    }
    let index = 0;
    while (index < args.length && /^[-+]./.test(args[index]!.value) && args[index]!.value !== "--") {
      index += /^[-+][oO]$/.test(args[index]!.value) ? 2 : 1;
    }
    if (args[index]?.value === "--") index += 1;
    if (index >= args.length || args[index]!.value === "-") return `${name} reads commands from its input`;
  }
  if (name === "find") {
    const action = command.argv.find((word) => findActions.has(word.value));
    if (action) return `find ${action.value} runs commands or changes files`;
    if (command.argv.some((word) => !word.literal)) return "find with arguments computed at run time";
  }
  return undefined;
}
