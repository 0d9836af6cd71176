/**
 * Command lines that write a file through redirection (or `tee`, `dd of=`) while looking like a
 * harmless `ls` or `git status`. `@` stands for the target: a file name relative to the working
 * directory (no quotes, spaces or `$` in it). `file` is where plain bash puts it, with `@` replaced
 * the same way. Used by the permission tests (none may be allowed by a prefix rule), the plain-bash
 * positive control (each really writes), and the end-to-end `cairn -p` and sandbox corpora.
 */
export type RedirectCase = { command: string; file: string };

const same = (command: string): RedirectCase => ({ command, file: "@" });

export const redirectCorpus: readonly RedirectCase[] = [
  // The forms the issue reported.
  same("ls > @"),
  same("git status > @"),
  same("ls 2> @"),
  same("ls >> @"),
  same("ls; echo x > @"),
  // Operators and descriptor numbers.
  same("ls >| @"),
  same("ls &> @"),
  same("ls &>> @"),
  same("ls >& @"),
  same("ls 1> @"),
  same("ls 3> @"),
  same("ls 9>> @"),
  same("ls 2>> @"),
  same("ls 1>| @"),
  same("ls <> @"),
  same("ls 0<> @"),
  same("ls 2>&1 > @"),
  same("ls > @ 2>&1"),
  same("ls > /dev/null > @"),
  same("ls>@"),
  same("ls 2>@ -la"),
  same("> @ ls"),
  same("ls -la>@"),
  // Quoting and escapes in the target.
  same('ls > "@"'),
  same("ls > '@'"),
  { command: "ls > \"@\"'-q'", file: "@-q" },
  { command: "ls > @\\-e", file: "@-e" },
  same("ls > $'@'"),
  { command: 'ls > "@"" x"', file: "@ x" },
  // Variables and expansions as targets.
  same('ls > "$PWD/@"'),
  same("ls > ${PWD}/@"),
  same("ls > ~+/@"),
  same("ls > ${UNSET_TARGET_VARIABLE:-@}"),
  same("T=@; ls > $T"),
  same("ls > $(echo @)"),
  same("ls > `echo @`"),
  // Writers fed by pipes, here-docs and here-strings.
  same("ls | tee @"),
  same("ls | tee -a @"),
  same("ls | tee /dev/null @"),
  same("ls | tee -- @"),
  same("tee @ <<< x"),
  same("cat <<EOF > @\nx\nEOF"),
  same("tee @ <<EOF\nx\nEOF"),
  same("cat > @ <<< x"),
  same("cat <<< x > @"),
  same("dd of=@ if=/dev/null"),
  same("echo x > @"),
  same("printf x >> @"),
  same("true > @"),
  same(": > @"),
  // Compound commands, subshells and wrappers.
  same("ls && echo x > @"),
  same("ls || true; ls > @"),
  same("(ls > @)"),
  same("(ls; echo > @)"),
  same("{ ls > @; }"),
  same("{ ls; } > @"),
  same("(ls) > @"),
  same("ls | (cat > @)"),
  same("timeout 5 ls > @"),
  same("env ls > @"),
  same("nice ls > @"),
  same("LANG=C ls > @"),
  same("command ls > @"),
  same("ls > @ &\nwait"),
  same("if ls; then echo > @; fi"),
  same("for i in 1; do ls > @; done"),
  // Functions, eval and nested shells.
  same("f() { ls > @; }; f"),
  same("function f { ls; }; f > @"),
  same("f() { ls; } > @; f"),
  same('eval "ls > @"'),
  same("eval ls '>' @"),
  same("ls && eval 'echo > @'"),
  same('bash -c "ls > @"'),
  same("sh -c 'ls > @'"),
  same("ls && bash -c 'ls >> @'"),
  same("bash <<< 'ls > @'"),
  same("exec 3> @"),
  same("exec > @; ls"),
];

/** A corpus entry with its target filled in: the command to run and the file it writes. */
export function instantiateRedirectCase(entry: RedirectCase, target: string): RedirectCase {
  return { command: entry.command.replaceAll("@", target), file: entry.file.replaceAll("@", target) };
}
