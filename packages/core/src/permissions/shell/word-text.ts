// Quote removal for the word forms tree-sitter-bash reports, following bash's rules.

/** An unquoted word: `\x` → `x`, `\<newline>` → nothing. */
export function unescapeUnquoted(text: string): string {
  let out = "";
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index]!;
    if (character !== "\\") {
      out += character;
      continue;
    }
    const next = text[index + 1];
    index += 1;
    if (next === undefined || next === "\n") continue;
    out += next;
  }
  return out;
}

/** Inside double quotes a backslash only escapes `$`, `` ` ``, `"`, `\` and newline. */
export function unescapeDoubleQuoted(text: string): string {
  let out = "";
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index]!;
    const next = text[index + 1];
    if (character === "\\" && next !== undefined && '$`"\\\n'.includes(next)) {
      if (next !== "\n") out += next;
      index += 1;
      continue;
    }
    out += character;
  }
  return out;
}

/** True when an unquoted word would be changed by pathname or tilde expansion. */
export function hasUnquotedExpansionCharacters(text: string): boolean {
  if (text.startsWith("~")) return true;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index]!;
    if (character === "\\") {
      index += 1;
      continue;
    }
    if (character === "*" || character === "?" || character === "[") return true;
  }
  return false;
}

const simpleEscapes: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Decodes `$'…'`; returns undefined for escapes it does not model, so the word counts as dynamic. */
export function decodeAnsiC(raw: string): string | undefined {
  if (!raw.startsWith("$'") || !raw.endsWith("'")) return undefined;
  const body = raw.slice(2, -1);
  let out = "";
  for (let index = 0; index < body.length; index += 1) {
    const character = body[index]!;
    if (character !== "\\") {
      out += character;
      continue;
    }
    const next = body[index + 1];
    if (next === undefined) return undefined;
    const simple = simpleEscapes[next];
    if (simple !== undefined) {
      out += simple;
      index += 1;
      continue;
    }
    const hex = next === "x" ? /^[0-9a-fA-F]{1,2}/.exec(body.slice(index + 2)) : null;
    if (hex) {
      out += String.fromCharCode(Number.parseInt(hex[0], 16));
      index += 1 + hex[0].length;
      continue;
    }
    const octal = /^[0-7]{1,3}/.exec(body.slice(index + 1));
    if (octal) {
      out += String.fromCharCode(Number.parseInt(octal[0], 8));
      index += octal[0].length;
      continue;
    }
    return undefined;
  }
  return out;
}

/** Splits a rule specifier like `npm run "my script"` into words (quotes and backslashes honoured). */
export function splitRuleWords(text: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index]!;
    if (quote) {
      if (character === quote) quote = null;
      else if (character === "\\" && quote === '"' && index + 1 < text.length) current += text[++index]!;
      else current += character;
      continue;
    }
    if (character === "'" || character === '"') {
      quote = character;
      inWord = true;
    } else if (character === "\\" && index + 1 < text.length) {
      current += text[++index]!;
      inWord = true;
    } else if (/\s/.test(character)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += character;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}
