/** The front matter of a Markdown file (agents, skills, commands): its YAML mapping and the text after it. */
export type FrontMatter = { data: Record<string, unknown>; body: string };

export type FrontMatterResult = { kind: "none" } | { kind: "invalid"; message: string } | ({ kind: "parsed" } & FrontMatter);

const fencePattern = /^---[ \t]*\n(?:([\s\S]*?)\n)?---[ \t]*(?:\n|$)/;

/**
 * Splits `---\n<yaml>\n---\n<body>` and parses the YAML with the `yaml` library (YAML 1.2 core schema), so block
 * scalars keep their indentation, quoted list items keep their commas and comments are dropped. `none` when the
 * text does not start with a front matter fence; `invalid` (with the parser's message) when the YAML is malformed
 * or is not a mapping. An empty front matter is an empty mapping. The `yaml` library (116 KB) is imported only when a
 * file has front matter, so a start without agent, skill or command files does not load it.
 */
export async function parseFrontMatter(text: string): Promise<FrontMatterResult> {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const match = fencePattern.exec(normalized);
  if (!match) return { kind: "none" };
  const body = normalized.slice(match[0].length);
  const yamlText = match[1] ?? "";
  // Bundled (cairn's dist), the dynamic import of this CommonJS-built package may hold its exports under `default`.
  const yaml: Partial<typeof import("yaml")> & { default?: typeof import("yaml") } = await import("yaml");
  const parseYaml = yaml.parse ?? yaml.default?.parse;
  if (!parseYaml) throw new Error("the yaml library has no parse function");
  let data: unknown;
  try {
    data = parseYaml(yamlText);
  } catch (error) {
    // Claude Code's agent files often carry an unquoted "description: Use when: …"; read those values as text.
    const repaired = quoteValuesWithColons(yamlText);
    try {
      if (repaired === yamlText) throw error;
      data = parseYaml(repaired);
    } catch {
      return { kind: "invalid", message: error instanceof Error ? (error.message.split("\n")[0] ?? error.message) : String(error) };
    }
  }
  if (data === null || data === undefined) return { kind: "parsed", data: {}, body };
  if (typeof data !== "object" || Array.isArray(data)) return { kind: "invalid", message: "the front matter must be a mapping of keys to values" };
  return { kind: "parsed", data: data as Record<string, unknown>, body };
}

/** A scalar field as text (`name: 42` → "42"); undefined when missing, null, a list or a mapping. */
export function frontMatterText(data: Record<string, unknown>, key: string): string | undefined {
  const value = data[key];
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/**
 * A list field: a YAML list (`[Read, "Bash(git add, git commit)"]` or `- Read`) as its items, or a string as a
 * comma-separated list where commas inside parentheses do not split (`Read, Bash(git diff:*)`). Items are trimmed;
 * empty ones are dropped. Undefined when the field is missing or null.
 */
export function frontMatterList(data: Record<string, unknown>, key: string): string[] | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  const items = Array.isArray(value) ? value.map((item) => (typeof item === "string" ? item : String(item))) : splitCommaList(String(value));
  return items.map((item) => item.trim()).filter((item) => item.length > 0);
}

/** `key: text: with colons` → `key: "text: with colons"`, for top-level plain scalars only. */
function quoteValuesWithColons(yamlText: string): string {
  return yamlText
    .split("\n")
    .map((line) => {
      const match = /^([A-Za-z_][\w-]*):[ \t]+(.+)$/.exec(line);
      const value = match?.[2]?.trim();
      if (!match || !value || /^["'[{|>&*!]/.test(value) || !value.includes(": ")) return line;
      return `${match[1]}: ${JSON.stringify(value)}`;
    })
    .join("\n");
}

function splitCommaList(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = "";
  for (const character of text) {
    if (character === "(") depth += 1;
    if (character === ")") depth = Math.max(0, depth - 1);
    if (character === "," && depth === 0) {
      items.push(current);
      current = "";
    } else current += character;
  }
  items.push(current);
  return items;
}
