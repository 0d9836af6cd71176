/**
 * The secret shapes the share redactor looks for. Hand-written after the shapes in gitleaks' default
 * rules (prefix-anchored provider keys first, then assignments), because the redactor has to be
 * synchronous and cheap enough to run on every streamed line, has to *replace* what it finds, and
 * has to match exact values (the server's own tokens and environment) as well as shapes; the npm
 * scanners (secretlint) are asynchronous file linters that report ranges per rule package.
 *
 * Every pattern except the PEM block stays on one line ([ \t], never \s): the live stream redacts
 * line by line and relies on that. Repetitions before a pattern's fixed part are bounded, so no input
 * makes a pattern backtrack quadratically (redact.test.ts times pathological inputs).
 */

export type SecretRule = {
  kind: string;
  /** Global regex. With a `secret` group, only that group is replaced; otherwise the whole match. */
  pattern: RegExp;
  /** A last look at the secret part (and the `name` group, if any), for shapes a regex alone over-matches. */
  accept?: (secret: string, name: string | undefined) => boolean;
};

const hasDigit = (value: string) => /\d/.test(value);
const hasLetter = (value: string) => /[A-Za-z]/.test(value);
const mixed = (value: string) => hasDigit(value) && hasLetter(value);

/** Values that are placeholders or references, not secrets: `$VAR`, `${…}`, `<your-key>`, `***`, `xxx…`. */
export function isPlaceholder(value: string): boolean {
  if (/^[$<{%*]/.test(value) || value.startsWith("[REDACTED")) return true;
  if (/^(.)\1*$/.test(value)) return true;
  return /^(true|false|null|none|undefined|changeme|your[-_].*|example.*|placeholder|redacted|xxx+|\.\.\.)$/i.test(value);
}

/** Names of variables that hold secrets, env style: `DB_PASSWORD`, `GITHUB_TOKEN`, `OPENAI_API_KEY`. */
const SECRET_NAME_WORD = "(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTH_?KEY|CREDENTIALS?)";
/** Names that merely mention a secret: where it lives or how it is used. */
const NOT_A_SECRET_SUFFIX = /_(URL|URI|PATH|FILE|DIR|HOST|PORT|ENDPOINT|TYPE|MODE|TTL|EXPIRY|EXPIRES|LENGTH|HEADER|NAME|ID|PREFIX|FORMAT|ENABLED)$/;

export const SECRET_RULES: readonly SecretRule[] = [
  { kind: "cairn-share-token", pattern: /\bcairn_shr_[A-Za-z0-9_-]{43}/g },
  { kind: "anthropic-key", pattern: /\bsk-ant-(?:[a-z]{2,10}\d{0,3}-)?[A-Za-z0-9_-]{20,}/g },
  { kind: "openai-key", pattern: /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}/g },
  { kind: "openai-key", pattern: /\bsk-[A-Za-z0-9]{32,}\b/g, accept: mixed },
  { kind: "aws-access-key-id", pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g },
  {
    kind: "aws-secret-key",
    pattern: /\b(?:aws_?secret_?(?:access_?)?key|secretAccessKey)["']?[ \t]*[:=][ \t]*["']?(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
  },
  { kind: "github-token", pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b/g },
  { kind: "github-token", pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g },
  { kind: "gitlab-token", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: "slack-token", pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, accept: hasDigit },
  { kind: "slack-webhook", pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9_/]{20,}/g },
  { kind: "stripe-key", pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: "google-api-key", pattern: /\bAIza[A-Za-z0-9_-]{35}/g },
  { kind: "npm-token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  {
    kind: "authorization-header",
    pattern: /\bAuthorization["']?[ \t]*[:=][ \t]*["']?(?:Bearer|Basic|Token|Bot)[ \t]+(?<secret>[A-Za-z0-9._~+/=-]{8,})/gi,
    accept: (secret) => !isPlaceholder(secret),
  },
  { kind: "bearer-token", pattern: /\bBearer[ \t]+(?<secret>[A-Za-z0-9._~+/-]{16,}=*)/g, accept: mixed },
  {
    kind: "url-credentials",
    pattern: /\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@'"`[\]]+:(?<secret>[^\s:/@'"`]+)@/gi,
    accept: (secret) => !isPlaceholder(secret),
  },
  {
    kind: "secret-assignment",
    pattern: new RegExp(
      `(?<![A-Za-z0-9_])(?:export[ \\t]+)?["']?(?<name>[A-Z0-9_]{0,40}${SECRET_NAME_WORD}[A-Z0-9_]{0,40})["']?[ \\t]*[:=][ \\t]*(?<quote>["']?)(?<secret>[^\\s"'\`]{6,})\\k<quote>`,
      "g",
    ),
    accept: (secret, name) => !isPlaceholder(secret) && (name === undefined || namesASecret(name)),
  },
  {
    kind: "secret-assignment",
    pattern:
      /(?<![A-Za-z0-9_])["']?(?:password|passwd|passphrase|secret|client[_-]?secret|secret[_-]?key|api[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key)["']?[ \t]*(?::|=|:=|=>)[ \t]*(?<quote>["'])(?<secret>[^"'\s]{8,})\k<quote>/gi,
    accept: (secret) => !isPlaceholder(secret),
  },
];

/** Whether an env-style name that matched SECRET_NAME_WORD names a secret rather than where one lives. */
export function namesASecret(name: string): boolean {
  return !NOT_A_SECRET_SUFFIX.test(name.toUpperCase());
}

/** A PEM private key block; an unterminated one (cut-off output) runs to the end of the text. */
export const PRIVATE_KEY_BLOCK = /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|$)/g;
