import { createHash, randomBytes } from "node:crypto";

/** Every share token starts with this, so scanners (and Cairn's own redactor) recognise one. */
export const SHARE_TOKEN_PREFIX = "cairn_shr_";
/** 32 random bytes, base64url without padding. */
const TOKEN_BYTES = 32;
const TOKEN_BODY_LENGTH = 43;

/** A fresh capability token: 256 random bits. Shown to the owner once; only its hash is stored. */
export function generateShareToken(): string {
  const body = randomBytes(TOKEN_BYTES).toString("base64url");
  if (body.length !== TOKEN_BODY_LENGTH) throw new Error(`unexpected token length ${body.length}`);
  return `${SHARE_TOKEN_PREFIX}${body}`;
}

/** SHA-256 hex of the token: what the store keeps and looks up by (a 256-bit token needs no slow hash). */
export function hashShareToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** The page a token opens. */
export function sharePath(token: string): string {
  return `/share/${token}`;
}
