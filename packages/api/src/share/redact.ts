import { PRIVATE_KEY_BLOCK, SECRET_RULES } from "./secret-rules.ts";

/**
 * The share redactor: a pure function of its options (no environment, no clock). What a share shows
 * goes through it; each secret becomes `[REDACTED:<kind>]`, and absolute paths lose the workspace
 * root (→ ".") and the home directory (→ "~").
 */

export type RedactionHit = { kind: string /** The secret masked for the owner's preview, e.g. "sk-ant-…Xy". */; preview: string };

/** A value to redact wherever it appears verbatim (the access token, secret-looking environment values). */
export type ExactSecret = { kind: string; value: string };

export type RedactorOptions = {
  extraSecrets?: readonly ExactSecret[];
  /** Absolute paths under it are shown relative to it. */
  workspaceRoot?: string | undefined;
  /** Shown as "~". */
  homeDir?: string | undefined;
};

export type Redactor = {
  redactText(text: string): { text: string; hits: RedactionHit[] };
  /** Walks a JSON value (messages, content blocks, tool inputs and outputs) and redacts every string in it. */
  redactValue<T>(value: T): { value: T; hits: RedactionHit[] };
};

/** Exact values shorter than this are not redacted: they would match ordinary words. */
export const MIN_EXACT_SECRET_LENGTH = 8;
const MAX_DEPTH = 64;

export function redactionMarker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/** Keeps enough of a secret to recognise it and too little to use it. */
export function maskSecret(secret: string): string {
  const firstLine = secret.split("\n", 1)[0] ?? "";
  if (firstLine.startsWith("-----BEGIN")) return `${firstLine}…`;
  if (secret.length < 12) return `${secret.slice(0, 2)}…`;
  const head = Math.min(7, Math.floor(secret.length / 4));
  const tail = secret.length >= 20 ? 2 : 0;
  return `${secret.slice(0, head)}…${tail ? secret.slice(-tail) : ""}`;
}

export function createRedactor(options: RedactorOptions = {}): Redactor {
  const exact = exactSecretMatcher(options.extraSecrets ?? []);
  const paths = pathRewriter(options.workspaceRoot, options.homeDir);

  function redactText(text: string): { text: string; hits: RedactionHit[] } {
    const hits: RedactionHit[] = [];
    let out = text;
    if (exact) {
      out = out.replace(exact.pattern, (match) => {
        const kind = exact.kinds.get(match) ?? "secret";
        hits.push({ kind, preview: maskSecret(match) });
        return redactionMarker(kind);
      });
    }
    if (out.includes("PRIVATE KEY")) {
      out = out.replace(PRIVATE_KEY_BLOCK, (match) => {
        hits.push({ kind: "private-key", preview: maskSecret(match) });
        return redactionMarker("private-key");
      });
    }
    for (const rule of SECRET_RULES) {
      rule.pattern.lastIndex = 0;
      out = out.replace(rule.pattern, (...args: unknown[]) => {
        const match = args[0] as string;
        const groups = args.at(-1) as Record<string, string | undefined> | undefined;
        const secret = typeof groups === "object" && groups !== null && groups.secret !== undefined ? groups.secret : match;
        if (secret.includes("[REDACTED:")) return match;
        if (rule.accept && !rule.accept(secret, typeof groups === "object" && groups !== null ? groups.name : undefined)) return match;
        hits.push({ kind: rule.kind, preview: maskSecret(secret) });
        if (secret === match) return redactionMarker(rule.kind);
        // Only the secret part goes: `API_KEY=[REDACTED:…]` still says what was there.
        const at = match.lastIndexOf(secret);
        return `${match.slice(0, at)}${redactionMarker(rule.kind)}${match.slice(at + secret.length)}`;
      });
    }
    return { text: paths(out), hits };
  }

  function walk(value: unknown, hits: RedactionHit[], depth: number): unknown {
    if (typeof value === "string") {
      const result = redactText(value);
      hits.push(...result.hits);
      return result.text;
    }
    if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return value;
    if (Array.isArray(value)) return value.map((item) => walk(item, hits, depth + 1));
    const record = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(record)) {
      out[key] = isOpaque(record, key) ? item : walk(item, hits, depth + 1);
    }
    return out;
  }

  return {
    redactText,
    redactValue<T>(value: T): { value: T; hits: RedactionHit[] } {
      const hits: RedactionHit[] = [];
      return { value: walk(value, hits, 0) as T, hits };
    },
  };
}

/**
 * Fields left as they are on purpose: base64 payloads of images and documents (binary, never shown
 * as text, and long runs of base64 can look like key shapes by chance), and the model's opaque
 * thinking signatures and redacted thinking.
 */
function isOpaque(record: Record<string, unknown>, key: string): boolean {
  if (key === "data" && record.type === "base64" && typeof record.media_type === "string") return true;
  if (key === "signature" && record.type === "thinking") return true;
  if (key === "data" && record.type === "redacted_thinking") return true;
  return false;
}

function exactSecretMatcher(secrets: readonly ExactSecret[]): { pattern: RegExp; kinds: Map<string, string> } | undefined {
  const kinds = new Map<string, string>();
  for (const secret of secrets) {
    if (secret.value.length >= MIN_EXACT_SECRET_LENGTH && !kinds.has(secret.value)) kinds.set(secret.value, secret.kind);
  }
  if (kinds.size === 0) return undefined;
  // Longest first, so a value that contains another is replaced whole.
  const alternatives = [...kinds.keys()].sort((left, right) => right.length - left.length).map(escapeRegExp);
  return { pattern: new RegExp(alternatives.join("|"), "g"), kinds };
}

function pathRewriter(workspaceRoot: string | undefined, homeDir: string | undefined): (text: string) => string {
  const rules: { pattern: RegExp; replacement: string }[] = [];
  for (const [root, replacement] of [
    [workspaceRoot, "."],
    [homeDir, "~"],
  ] as const) {
    const trimmed = root?.replace(/\/+$/, "");
    // "/" or "" would rewrite every path.
    if (!trimmed || trimmed.length < 2) continue;
    rules.push({ pattern: new RegExp(`${escapeRegExp(trimmed)}(?=[/\\\\]|$|[^A-Za-z0-9._-])`, "g"), replacement });
  }
  if (rules.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const rule of rules) out = out.replace(rule.pattern, rule.replacement);
    return out;
  };
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
