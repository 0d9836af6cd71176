import type { ShellWord } from "./types.ts";
import { splitRuleWords } from "./word-text.ts";

/**
 * A compiled `Bash(…)` specifier, matched against ONE simple command's argv (after quote removal):
 * - `npm run test:*` and `npm run test *`: the argv starts with these words (word boundary, so
 *   `npm run testing` does not match); the words compared must be literal.
 * - `ls`: the argv is exactly these words.
 * - any other `*`: a wildcard over the argv joined by spaces; every word must be literal.
 */
export type BashSpecifier = { kind: "prefix"; words: string[] } | { kind: "exact"; words: string[] } | { kind: "wildcard"; pattern: RegExp };

export function compileBashSpecifier(content: string): BashSpecifier {
  const trimmed = content.trim();
  if (trimmed.endsWith(":*")) return { kind: "prefix", words: splitRuleWords(trimmed.slice(0, -2)) };
  if (/\s\*$/.test(trimmed) && !trimmed.slice(0, -1).includes("*")) {
    return { kind: "prefix", words: splitRuleWords(trimmed.slice(0, -1)) };
  }
  if (trimmed.includes("*")) {
    const source = trimmed
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\s+/g, " "))
      .join(".*");
    return { kind: "wildcard", pattern: new RegExp(`^${source}$`, "s") };
  }
  return { kind: "exact", words: splitRuleWords(trimmed) };
}

export function bashSpecifierMatches(specifier: BashSpecifier, argv: readonly ShellWord[]): boolean {
  switch (specifier.kind) {
    case "prefix":
      if (specifier.words.length === 0 || argv.length < specifier.words.length) return false;
      return specifier.words.every((word, index) => argv[index]!.literal && argv[index]!.value === word);
    case "exact":
      return argv.length === specifier.words.length && specifier.words.every((word, index) => argv[index]!.literal && argv[index]!.value === word);
    case "wildcard":
      return argv.every((word) => word.literal) && specifier.pattern.test(argv.map((word) => word.value).join(" "));
  }
}

/** Rough words for text the parser could not read, so deny and ask rules still catch it. */
export function fallbackSegments(command: string): ShellWord[][] {
  return command
    .split(/\$\(|<\(|>\(|[;&|\n()`{}]/)
    .map((segment) => splitRuleWords(segment.trim()).map((value) => ({ value, literal: true, raw: value })))
    .filter((argv) => argv.length > 0);
}
