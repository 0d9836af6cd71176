import { MIN_EXACT_SECRET_LENGTH, type ExactSecret } from "./redact.ts";

const SECRET_NAME = /key|token|secret|passw|passphrase|credential|auth|cookie|session|private|signature|salt/i;
/** Names that mention a secret but hold where it lives or how it is used. */
const NOT_A_SECRET_NAME = /(_|^)(PATH|FILE|DIR|HOME|SOCK|HOST|PORT|URL|URI|ENDPOINT|MODE|TYPE|NAME|ID)$/i;

/**
 * The values of an environment that look secret: a secret-looking name and a value of at least 8
 * characters that is not a path, a number or a flag. Pure: the caller passes the environment in.
 */
export function secretEnvironmentValues(env: Readonly<Record<string, string | undefined>>, kind = "env-secret"): ExactSecret[] {
  const found: ExactSecret[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < MIN_EXACT_SECRET_LENGTH) continue;
    if (!SECRET_NAME.test(name) || NOT_A_SECRET_NAME.test(name)) continue;
    if (value.startsWith("/") || /^(\d+|true|false|yes|no|on|off)$/i.test(value)) continue;
    found.push({ kind, value });
  }
  return found;
}
