export type FrontMatterValue = string | string[];
export type FrontMatter = { data: Record<string, FrontMatterValue>; body: string };

/**
 * The YAML front matter of an agent file, the subset Claude Code's agent files use: `key: value`
 * scalars (plain, single- or double-quoted, or `|` / `>` blocks), inline lists `[a, b]` and block
 * lists (`- a`). Returns null when the text has no front matter.
 */
export function parseFrontMatter(text: string): FrontMatter | null {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const match = /^---[ \t]*\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(normalized);
  if (!match) return null;
  const lines = (match[1] ?? "").split("\n");
  const data: Record<string, FrontMatterValue> = {};
  let index = 0;
  const indented = (line: string | undefined) => line !== undefined && (line.trim() === "" || /^[ \t]/.test(line));
  while (index < lines.length) {
    const line = lines[index++]!;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const keyMatch = /^([A-Za-z_][\w-]*)\s*:\s?(.*)$/.exec(line);
    if (!keyMatch) continue;
    const key = keyMatch[1]!;
    const raw = keyMatch[2]!.trim();
    if (raw === "|" || raw === ">" || raw === "|-" || raw === ">-") {
      const block: string[] = [];
      while (indented(lines[index])) block.push(lines[index++]!.trim());
      while (block.at(-1) === "") block.pop();
      data[key] = raw.startsWith("|") ? block.join("\n") : block.join(" ").replace(/\s+/g, " ").trim();
      continue;
    }
    if (raw === "") {
      const items: string[] = [];
      while (index < lines.length && /^\s*-\s/.test(lines[index]!)) items.push(unquote(lines[index++]!.replace(/^\s*-\s/, "").trim()));
      data[key] = items.length > 0 ? items : "";
      continue;
    }
    if (raw.startsWith("[") && raw.endsWith("]")) {
      data[key] = raw.slice(1, -1).split(",").map((item) => unquote(item.trim())).filter((item) => item.length > 0);
      continue;
    }
    let value = raw;
    // A plain scalar may continue on indented lines.
    if (!raw.startsWith('"') && !raw.startsWith("'")) while (index < lines.length && /^[ \t]+\S/.test(lines[index]!)) value += ` ${lines[index++]!.trim()}`;
    data[key] = unquote(value);
  }
  return { data, body: normalized.slice(match[0].length) };
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return value.slice(1, -1);
    }
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
  return value;
}
