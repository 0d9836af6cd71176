import type { Token } from "marked";

/** `@path` after the start of a text run or whitespace; `\ ` keeps a space inside the path. */
const IMPORT_PATTERN = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g;

/**
 * The `@path` imports of a memory file, in order of appearance, without duplicates. The markdown is
 * tokenised with marked's lexer so an `@` inside a code span or a code block is not an import; a
 * `#fragment` is dropped, and only things that look like paths count (not `@@`, `@#`, e-mail addresses). marked
 * (51 KB) is imported only for a file with an `@` in it.
 */
export async function findImports(markdown: string): Promise<string[]> {
  if (!markdown.includes("@")) return [];
  const { Lexer } = await import("marked");
  const found = new Set<string>();
  const visit = (tokens: readonly Token[]): void => {
    for (const token of tokens) {
      if (token.type === "code" || token.type === "codespan" || token.type === "html") continue;
      const children = "tokens" in token && Array.isArray(token.tokens) ? (token.tokens as Token[]) : undefined;
      // A text token with inline children (inside a list item) holds raw text: read the children instead.
      if (token.type === "text" && !children) scanText(token.text, found);
      if (children) visit(children);
      if (token.type === "list") for (const item of token.items) visit(item.tokens);
      if (token.type === "table") {
        for (const cell of token.header) visit(cell.tokens);
        for (const row of token.rows) for (const cell of row) visit(cell.tokens);
      }
    }
  };
  visit(new Lexer({ gfm: true }).lex(markdown));
  return [...found];
}

function scanText(text: string, found: Set<string>): void {
  for (const match of text.matchAll(IMPORT_PATTERN)) {
    let path = match[1] ?? "";
    const hash = path.indexOf("#");
    if (hash >= 0) path = path.slice(0, hash);
    path = path.replace(/\\ /g, " ").replace(/[.,;:!?)]+$/, "");
    if (looksLikePath(path)) found.add(path);
  }
}

function looksLikePath(path: string): boolean {
  if (path === "" || path === "/" || path === "~" || path.startsWith("@")) return false;
  return path.startsWith("./") || path.startsWith("../") || path.startsWith("~/") || path.startsWith("/") || /^[A-Za-z0-9._-]/.test(path);
}
