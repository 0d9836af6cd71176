import { WorkspaceError } from "@cairn/core/workspace";

// Rust's classes are Unicode-aware; JavaScript's \w, \d and \s are not, even with the `u` flag.
const wordClass = String.raw`\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}`;
const classEscapes: Record<string, { inClass: string; alone: string }> = {
  w: { inClass: wordClass, alone: `[${wordClass}]` },
  W: { inClass: String.raw`\W`, alone: `[^${wordClass}]` },
  d: { inClass: String.raw`\p{Nd}`, alone: String.raw`\p{Nd}` },
  D: { inClass: String.raw`\P{Nd}`, alone: String.raw`\P{Nd}` },
  s: { inClass: String.raw`\p{White_Space}`, alone: String.raw`\p{White_Space}` },
  S: { inClass: String.raw`\P{White_Space}`, alone: String.raw`\P{White_Space}` },
};
const posixClasses: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: String.raw`\x00-\x7F`,
  blank: String.raw`\t `,
  cntrl: String.raw`\x00-\x1F\x7F`,
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: String.raw`!-\/:-@\[-\x60\{-~`,
  space: String.raw`\t\n\v\f\r `,
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};
// Characters JavaScript accepts after a backslash in `u` mode.
const jsSyntaxCharacters = new Set("^$\\.*+?()[]{}|/");

export type TranslatedRegex = { source: string; flags: string };

/** Translates ripgrep's (Rust) regex syntax into an equivalent JavaScript `u`-mode pattern. */
export function translateRustRegex(pattern: string, options: { caseInsensitive: boolean; multiline: boolean }): TranslatedRegex {
  const flags = new Set<string>(["u"]);
  if (options.caseInsensitive) flags.add("i");
  if (options.multiline) flags.add("s");
  let index = 0;
  let output = "";
  const leading = /^\(\?([imsx]+)\)/.exec(pattern);
  if (leading?.[1] !== undefined) {
    for (const flag of leading[1]) {
      if (flag === "x") throw invalid(pattern, "the x (verbose) flag is not supported by the JavaScript search engine");
      // ^ and $ always mean line boundaries here (see below), so (?m) needs no flag.
      if (flag !== "m") flags.add(flag);
    }
    index = leading[0].length;
  }
  let inClass = false;
  while (index < pattern.length) {
    const character = pattern[index] ?? "";
    if (character === "\\") {
      const next = pattern[index + 1];
      if (next === undefined) throw invalid(pattern, "the pattern ends with a lone backslash");
      const classEscape = classEscapes[next];
      if (classEscape !== undefined) {
        output += inClass ? classEscape.inClass : classEscape.alone;
        index += 2;
        continue;
      }
      if (next === "x" && pattern[index + 2] === "{") {
        const close = pattern.indexOf("}", index + 3);
        if (close === -1) throw invalid(pattern, "unclosed \\x{...} escape");
        output += `\\u{${pattern.slice(index + 3, close)}}`;
        index = close + 1;
        continue;
      }
      if (/[1-9]/.test(next)) throw invalid(pattern, "backreferences are not supported");
      if (next === "A" && !inClass) output += "^";
      else if (next === "z" && !inClass) output += "$";
      else if (next === "-") output += inClass ? "\\-" : "-";
      else if (/[a-zA-Z0-9]/.test(next) || jsSyntaxCharacters.has(next)) output += `\\${next}`;
      else throw invalid(pattern, `unrecognized escape sequence \\${next}`);
      index += 2;
      continue;
    }
    if (inClass) {
      if (character === "[" && pattern[index + 1] === ":") {
        const close = pattern.indexOf(":]", index + 2);
        const name = close === -1 ? undefined : pattern.slice(index + 2, close);
        const replacement = name === undefined ? undefined : posixClasses[name];
        if (replacement !== undefined) {
          output += replacement;
          index = close + 2;
          continue;
        }
      }
      if (character === "]") inClass = false;
      output += character === "[" ? "\\[" : character;
      index += 1;
      continue;
    }
    if (character === "[") {
      inClass = true;
      output += "[";
      index += 1;
      // A leading ] (or ^]) is a literal in Rust.
      if (pattern[index] === "^") {
        output += "^";
        index += 1;
      }
      if (pattern[index] === "]") {
        output += "\\]";
        index += 1;
      }
      continue;
    }
    // In JavaScript \r ends a line for ^, $ and "."; in ripgrep only \n does.
    if (character === "^" || character === "$" || character === ".") {
      output += character === "^" ? "(?<![^\n])" : character === "$" ? "(?![^\n])" : flags.has("s") ? "[^]" : "[^\n]";
      index += 1;
      continue;
    }
    if (character === "(" && /^\(\?(=|!|<=|<!)/.test(pattern.slice(index, index + 4))) {
      throw invalid(pattern, "look-around is not supported");
    }
    if (character === "(" && pattern.startsWith("(?P<", index)) {
      output += "(?<";
      index += 4;
      continue;
    }
    if (character === "{" && !/^\{\d+(,\d*)?\}/.test(pattern.slice(index))) throw invalid(pattern, "unclosed counted repetition");
    if (character === "}" && !/\{\d+(,\d*)?$/.test(pattern.slice(0, index))) {
      output += "\\}";
      index += 1;
      continue;
    }
    output += character;
    index += 1;
  }
  return { source: output, flags: [...flags].sort().join("") };
}

export function compileSearchRegex(pattern: string, options: { caseInsensitive: boolean; multiline: boolean }): RegExp {
  if (!options.multiline && (pattern.includes("\n") || /(^|[^\\])(\\\\)*\\n/.test(pattern))) {
    throw invalid(pattern, "a newline cannot be matched unless multiline is enabled");
  }
  const translated = translateRustRegex(pattern, options);
  try {
    // Multiline searches walk their matches with lastIndex, hence `g`.
    return new RegExp(translated.source, options.multiline ? `${translated.flags}g` : translated.flags);
  } catch (error) {
    throw invalid(pattern, error instanceof Error ? error.message : String(error));
  }
}

function invalid(pattern: string, reason: string): WorkspaceError {
  return new WorkspaceError("invalid_pattern", `Invalid regular expression ${JSON.stringify(pattern)}: ${reason}`);
}
