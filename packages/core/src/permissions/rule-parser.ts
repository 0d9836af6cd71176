/** A permission rule as written: `Tool` or `Tool(specifier)`. `content` is unescaped. */
export type RuleValue = { toolName: string; content?: string };

export type RuleParseResult = { ok: true; value: RuleValue } | { ok: false; message: string };

const toolNamePattern = /^[A-Za-z][\w.-]*(\*)?$/;

/** Index of the first `(` or the last `)` not preceded by an odd number of backslashes. */
function findUnescaped(text: string, character: "(" | ")", fromEnd: boolean): number {
  const isEscaped = (index: number): boolean => {
    let backslashes = 0;
    for (let cursor = index - 1; cursor >= 0 && text[cursor] === "\\"; cursor -= 1) backslashes += 1;
    return backslashes % 2 === 1;
  };
  if (fromEnd) {
    for (let index = text.length - 1; index >= 0; index -= 1) if (text[index] === character && !isEscaped(index)) return index;
    return -1;
  }
  for (let index = 0; index < text.length; index += 1) if (text[index] === character && !isEscaped(index)) return index;
  return -1;
}

function unescapeContent(content: string): string {
  return content.replace(/\\([\\()])/g, "$1");
}

export function escapeRuleContent(content: string): string {
  return content.replace(/[\\()]/g, (character) => `\\${character}`);
}

/**
 * Parses Claude Code's rule syntax. Parentheses inside the specifier may be escaped with a
 * backslash (`Bash(python -c "print\(1\)")`); `Tool()` and `Tool(*)` mean the whole tool.
 */
export function parseRuleValue(rule: string): RuleParseResult {
  const text = rule.trim();
  if (text === "") return { ok: false, message: "empty rule" };
  const open = findUnescaped(text, "(", false);
  if (open === -1) {
    if (findUnescaped(text, ")", true) !== -1) return { ok: false, message: `unbalanced ")" in rule "${rule}"` };
    if (!toolNamePattern.test(text)) return { ok: false, message: `"${text}" is not a valid tool name` };
    return { ok: true, value: { toolName: text } };
  }
  const toolName = text.slice(0, open);
  if (!toolNamePattern.test(toolName)) return { ok: false, message: `"${toolName}" is not a valid tool name` };
  const close = findUnescaped(text, ")", true);
  if (close !== text.length - 1 || close < open) {
    return { ok: false, message: `rule "${rule}" must end with ")" closing its specifier` };
  }
  const content = unescapeContent(text.slice(open + 1, close)).trim();
  if (content === "" || content === "*") return { ok: true, value: { toolName } };
  return { ok: true, value: { toolName, content } };
}

export function formatRuleValue(value: RuleValue): string {
  return value.content === undefined ? value.toolName : `${value.toolName}(${escapeRuleContent(value.content)})`;
}

/**
 * Splits `--allowedTools`/`--disallowedTools` values: each value may hold several rules separated
 * by commas or whitespace outside parentheses (`"Bash(git log:*),Read"`).
 */
export function splitToolListFlag(values: readonly string[]): string[] {
  const rules: string[] = [];
  for (const value of values) {
    let depth = 0;
    let current = "";
    for (let index = 0; index < value.length; index += 1) {
      const character = value[index]!;
      if (character === "\\" && index + 1 < value.length) {
        current += character + value[index + 1]!;
        index += 1;
        continue;
      }
      if (character === "(") depth += 1;
      if (character === ")") depth = Math.max(0, depth - 1);
      if (depth === 0 && (character === "," || /\s/.test(character))) {
        if (current.trim() !== "") rules.push(current.trim());
        current = "";
        continue;
      }
      current += character;
    }
    if (current.trim() !== "") rules.push(current.trim());
  }
  return rules;
}
