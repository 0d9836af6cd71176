import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A fresh access token: 32 random bytes, base64url (43 characters). */
export function generateAccessToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Compares in constant time whatever the lengths (both sides are hashed to 32 bytes first). */
export function tokensEqual(presented: string, expected: string): boolean {
  const left = createHash("sha256").update(presented, "utf8").digest();
  const right = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(left, right) && presented.length === expected.length;
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** Why the streams opened with this node's access token ended, and why it is refused: a node started with a newer one. */
export const TOKEN_REPLACED_MESSAGE =
  "The access token (CAIRN_TOKEN) was changed: a node started with a new one. Use the new token; restart this node with it.";
