import type { RedirectKind, ShellAnalysis, ShellAssignment, ShellRedirect, ShellWord, SimpleCommand } from "./types.ts";
import { childForField, namedChildren, type SyntaxNode } from "./syntax-tree.ts";
import { decodeAnsiC, hasUnquotedExpansionCharacters, unescapeDoubleQuoted, unescapeUnquoted } from "./word-text.ts";

// Statement nodes whose children are statements joined by `;`, `&`, `&&`, `||`, `|`, newlines.
const sequenceTypes = new Set(["program", "list", "pipeline", "subshell", "compound_statement", "negated_command"]);

// Constructs that run commands we could list but whose control flow, scoping or persistence rules
// cannot be checked against prefix rules: they always ask.
const unsupportedStatements: Record<string, string> = {
  function_definition: "a function definition",
  if_statement: "an if statement",
  while_statement: "a loop",
  for_statement: "a loop",
  c_style_for_statement: "a loop",
  case_statement: "a case statement",
  declaration_command: "a declaration (export/declare/local/readonly)",
  unset_command: "unset",
  test_command: "a test expression",
  variable_assignment: "a variable assignment",
  variable_assignments: "a variable assignment",
};

const outputOperators = new Set([">", ">>", "&>", "&>>", ">|"]);

type Walker = {
  commands: SimpleCommand[];
  redirects: ShellRedirect[];
  problems: string[];
};

function problem(walker: Walker, message: string): void {
  if (!walker.problems.includes(message)) walker.problems.push(message);
}

/** Walks any subtree: flags hazards and lists commands hidden in substitutions. */
function scan(walker: Walker, node: SyntaxNode, nested: boolean): void {
  if (node.isError || node.isMissing) {
    problem(walker, "the command has a syntax error");
    return;
  }
  switch (node.type) {
    case "command_substitution":
      problem(walker, "command substitution $(…) or `…`");
      for (const child of namedChildren(node)) statement(walker, child, true);
      return;
    case "process_substitution":
      problem(walker, "process substitution <(…) or >(…)");
      for (const child of namedChildren(node)) statement(walker, child, true);
      return;
    case "arithmetic_expansion":
      problem(walker, "arithmetic expansion $((…))");
      break;
    case "command":
      command(walker, node, nested);
      return;
    // Redirections inside functions, loops and conditions are recorded too, so their targets are named.
    case "file_redirect":
    case "heredoc_redirect":
    case "herestring_redirect":
      standaloneRedirect(walker, node, nested);
      return;
  }
  for (const child of namedChildren(node)) scan(walker, child, nested);
}

function statement(walker: Walker, node: SyntaxNode, nested: boolean): void {
  if (node.isError || node.isMissing) {
    problem(walker, "the command has a syntax error");
    scan(walker, node, nested);
    return;
  }
  if (node.type === "comment") return;
  if (sequenceTypes.has(node.type)) {
    for (const child of namedChildren(node)) statement(walker, child, nested);
    if (node.hasError) problem(walker, "the command has a syntax error");
    return;
  }
  if (node.type === "command") {
    command(walker, node, nested);
    return;
  }
  if (node.type === "redirected_statement") {
    // `ls > out -la`: the words after the target are arguments of the simple command, if there is one.
    let owner: SimpleCommand | undefined;
    for (const child of namedChildren(node)) {
      if (!child.type.endsWith("_redirect")) {
        statement(walker, child, nested);
        if (child.type === "command") owner = walker.commands.at(-1);
        continue;
      }
      const extra = redirect(walker, child, nested);
      if (extra.length === 0) continue;
      if (owner) {
        owner.argv.push(...extra);
        owner.text = node.text;
      } else problem(walker, "words after a redirection target");
    }
    return;
  }
  problem(walker, unsupportedStatements[node.type] ?? `unsupported shell syntax (${node.type})`);
  scan(walker, node, nested);
}

function command(walker: Walker, node: SyntaxNode, nested: boolean): void {
  const argv: ShellWord[] = [];
  const assignments: ShellAssignment[] = [];
  for (const child of namedChildren(node)) {
    if (child.type === "variable_assignment") {
      const name = childForField(child, "name")?.text ?? "";
      const valueNode = childForField(child, "value");
      assignments.push({ name, value: valueNode ? word(walker, valueNode, nested) : { value: "", literal: true, raw: "" } });
      continue;
    }
    if (child.type.endsWith("_redirect")) {
      argv.push(...redirect(walker, child, nested));
      continue;
    }
    if (child.type === "command_name") {
      const nameNode = child.children.find((part) => part.isNamed);
      const name = nameNode ? word(walker, nameNode, nested) : { value: "", literal: false, raw: child.text };
      if (!name.literal) problem(walker, "an expansion in command position");
      argv.push(name);
      continue;
    }
    if (child.type === "subshell") {
      problem(walker, `unsupported shell syntax (${child.type})`);
      scan(walker, child, nested);
      continue;
    }
    argv.push(word(walker, child, nested));
  }
  if (argv.length === 0) problem(walker, "a command without a name");
  walker.commands.push({ argv, assignments, text: node.text, nested });
}

function word(walker: Walker, node: SyntaxNode, nested: boolean): ShellWord {
  const raw = node.text;
  switch (node.type) {
    case "word":
      return { value: unescapeUnquoted(raw), literal: !hasUnquotedExpansionCharacters(raw), raw };
    case "number":
      return { value: raw, literal: true, raw };
    case "raw_string":
      return { value: raw.slice(1, -1), literal: true, raw };
    case "ansi_c_string": {
      const decoded = decodeAnsiC(raw);
      return decoded === undefined ? { value: raw, literal: false, raw } : { value: decoded, literal: true, raw };
    }
    case "string": {
      let value = "";
      let literal = true;
      for (const child of node.children) {
        if (child.type === '"') continue;
        if (child.type === "string_content") value += unescapeDoubleQuoted(child.text);
        else if (child.isNamed) {
          const part = word(walker, child, nested);
          value += part.value;
          literal &&= part.literal;
        } else value += child.text;
      }
      return { value, literal, raw };
    }
    case "concatenation": {
      let value = "";
      let literal = true;
      const parts = namedChildren(node);
      for (const child of parts) {
        const part = word(walker, child, nested);
        value += part.value;
        literal &&= part.literal;
      }
      // `{a,b}` arrives as a concatenation of `{`, `a,b`, `}`; only `{}` is left alone by bash.
      if (raw !== "{}" && parts.some((child) => child.type === "word" && (child.text === "{" || child.text === "}"))) literal = false;
      return { value, literal, raw };
    }
    case "simple_expansion":
    case "expansion":
    case "brace_expression":
    case "translated_string":
    case "extglob_pattern":
    case "regex":
      scan(walker, node, nested);
      return { value: raw, literal: false, raw };
    default:
      scan(walker, node, nested);
      if (!["command_substitution", "process_substitution", "arithmetic_expansion"].includes(node.type)) {
        problem(walker, `unsupported shell syntax (${node.type})`);
      }
      return { value: raw, literal: false, raw };
  }
}

/**
 * Records one redirection. tree-sitter-bash gives a redirection every word up to the next operator
 * (`ls > out -la`), but bash takes only the first as the target: the rest are arguments of the
 * command, returned so the caller can put them back into argv.
 */
function redirect(walker: Walker, node: SyntaxNode, nested: boolean): ShellWord[] {
  if (node.type === "herestring_redirect") {
    for (const child of namedChildren(node)) word(walker, child, nested);
    walker.redirects.push({ operator: "<<<", kind: "herestring" });
    return [];
  }
  if (node.type === "heredoc_redirect") {
    walker.redirects.push({ operator: "<<", kind: "heredoc" });
    const extra: ShellWord[] = [];
    for (const child of namedChildren(node)) {
      if (child.type === "heredoc_body") scan(walker, child, nested);
      else if (child.type === "file_redirect") extra.push(...redirect(walker, child, nested));
      else if (!["heredoc_start", "heredoc_end"].includes(child.type)) statement(walker, child, nested);
    }
    return extra;
  }
  if (node.type !== "file_redirect") {
    problem(walker, `unsupported redirection (${node.type})`);
    scan(walker, node, nested);
    return [];
  }
  let operator = "";
  let fd: number | undefined;
  let target: ShellWord | undefined;
  const extra: ShellWord[] = [];
  for (const child of node.children) {
    if (child.isError || child.isMissing) {
      problem(walker, "the command has a syntax error");
      continue;
    }
    if (!child.isNamed) operator = child.text;
    else if (child.type === "file_descriptor") fd = Number(child.text);
    else if (target === undefined) target = word(walker, child, nested);
    else extra.push(word(walker, child, nested));
  }
  walker.redirects.push({ operator, kind: redirectKind(operator, target), ...(fd === undefined ? {} : { fd }), ...(target ? { target } : {}) });
  return extra;
}

/** A redirection outside a simple command: words after its target would be a bash syntax error. */
function standaloneRedirect(walker: Walker, node: SyntaxNode, nested: boolean): void {
  if (redirect(walker, node, nested).length > 0) problem(walker, "words after a redirection target");
}

function redirectKind(operator: string, target: ShellWord | undefined): RedirectKind {
  if (operator === ">&-" || operator === "<&-") return "close";
  if (operator === ">&" || operator === "<&") {
    if (!target || (target.literal && /^(\d+|-)$/.test(target.value))) return "duplicate";
    return operator === ">&" ? "write" : "read";
  }
  if (outputOperators.has(operator)) return "write";
  if (operator === "<") return "read";
  return "write";
}

export function analyzeTree(root: SyntaxNode, command: string): ShellAnalysis {
  const walker: Walker = { commands: [], redirects: [], problems: [] };
  statement(walker, root, false);
  if (root.hasError) problem(walker, "the command has a syntax error");
  return { command, commands: walker.commands, redirects: walker.redirects, problems: walker.problems };
}
