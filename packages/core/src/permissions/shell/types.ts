/** One shell word after quote removal. `literal` is false when expansion could change it at run time. */
export type ShellWord = {
  value: string;
  literal: boolean;
  /** The source text, for messages. */
  raw: string;
};

export type RedirectKind = "read" | "write" | "duplicate" | "close" | "heredoc" | "herestring";

export type ShellRedirect = {
  operator: string;
  kind: RedirectKind;
  fd?: number;
  target?: ShellWord;
};

export type ShellAssignment = { name: string; value: ShellWord };

/** A simple command: optional `NAME=value` prefixes, then argv. */
export type SimpleCommand = {
  argv: ShellWord[];
  assignments: ShellAssignment[];
  text: string;
  /** Found inside a command or process substitution (runs, but hidden inside another command). */
  nested: boolean;
};

/**
 * What the parser saw. `problems` lists every construct that makes the command impossible to
 * allow by a rule (substitutions, control flow, syntax errors, …); `commands` still lists every
 * simple command found, nested ones included, so deny and ask rules can match them.
 */
export type ShellAnalysis = {
  command: string;
  commands: SimpleCommand[];
  redirects: ShellRedirect[];
  problems: string[];
};
