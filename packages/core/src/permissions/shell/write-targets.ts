import { isWithin, resolvePosix } from "../posix-path.ts";
import { commandName, unwrapCommand } from "./command-safety.ts";
import type { ShellAnalysis, ShellRedirect, ShellWord } from "./types.ts";

/**
 * A file a command line writes: through an output redirection, `tee` or `dd of=`. A rule that
 * allows the command never allows these writes; an Edit rule or acceptEdits has to.
 */
export type ShellWrite = {
  /** The target as the command spells it, for messages. */
  text: string;
  /** How it is written: `>`, `2>>`, `&>`, `tee`, `dd of=`, … */
  via: string;
  /** The absolute path, when it can be known before the command runs. */
  path?: string;
  /** Why the path cannot be known before the command runs. */
  unknown?: string;
  /** A device, `/proc` or `/sys` file: never a workspace file, whatever the rules. */
  device?: boolean;
};

// Targets that write nothing anyone keeps: the bit bucket and the command's own output streams.
const harmlessTargets = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/** True for a redirection that writes to a file (not `/dev/null`, not `2>&1`, not a read). */
export function isFileWriteRedirect(redirect: ShellRedirect): boolean {
  if (redirect.kind !== "write") return false;
  return !(redirect.target?.literal && harmlessTargets.has(redirect.target.value));
}

const directoryChangers = new Set(["cd", "pushd", "popd"]);

function locate(word: ShellWord, via: string, cwd: string, cwdKnown: boolean): ShellWrite {
  if (!word.literal) return { text: word.raw, via, unknown: "computed at run time" };
  if (!word.value.startsWith("/") && !cwdKnown) return { text: word.raw, via, unknown: "relative to a directory changed by cd" };
  const path = resolvePosix(cwd, word.value);
  const device = ["/dev", "/proc", "/sys"].some((root) => isWithin(root, path));
  return { text: word.raw, via, path, ...(device ? { device } : {}) };
}

/** File operands of `tee` (stdin is copied to each) and the `of=` operand of `dd`. */
function commandWriteOperands(argv: readonly ShellWord[]): Array<{ word: ShellWord; via: string }> {
  const name = commandName(argv[0]);
  const args = argv.slice(1);
  if (name === "tee") {
    const operands: Array<{ word: ShellWord; via: string }> = [];
    let optionsEnded = false;
    for (const word of args) {
      if (!optionsEnded && word.literal && word.value === "--") optionsEnded = true;
      else if (!optionsEnded && word.literal && word.value.startsWith("-") && word.value !== "-") continue;
      else operands.push({ word, via: "tee" });
    }
    return operands;
  }
  if (name === "dd") {
    return args
      .filter((word) => !word.literal || word.value.startsWith("of="))
      .map((word) => ({ word: word.literal ? { ...word, value: word.value.slice(3) } : word, via: "dd of=" }));
  }
  return [];
}

/**
 * Every file the command line writes, in source order. `cwd` resolves relative targets; after a
 * `cd` anywhere in the line a relative target is reported as unknown.
 */
export function shellWrites(analysis: ShellAnalysis, cwd: string): ShellWrite[] {
  const cwdKnown = !analysis.commands.some((command) => directoryChangers.has(commandName(command.argv[0])));
  const writes: ShellWrite[] = [];
  for (const redirect of analysis.redirects) {
    if (!isFileWriteRedirect(redirect)) continue;
    const via = `${redirect.fd ?? ""}${redirect.operator}`;
    writes.push(redirect.target ? locate(redirect.target, via, cwd, cwdKnown) : { text: "", via, unknown: "no target" });
  }
  for (const command of analysis.commands) {
    for (const operand of commandWriteOperands(unwrapCommand(command).argv)) {
      if (operand.word.literal && harmlessTargets.has(operand.word.value)) continue;
      writes.push(locate(operand.word, operand.via, cwd, cwdKnown));
    }
  }
  return writes;
}

/** `marker (>)`, `out.log (tee)`: the targets as a person reads them. */
export function describeWrites(writes: readonly ShellWrite[]): string {
  return writes.map((write) => `${write.text || "(no target)"} (${write.via}${write.unknown ? `, ${write.unknown}` : ""})`).join(", ");
}
