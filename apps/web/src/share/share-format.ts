/** What a share link's row says about it: usable, past its expiry, or revoked by its owner. */
export type ShareStatus = "active" | "expired" | "revoked";

export type ShareDates = { expiresAt: string | number | null; revokedAt: string | number | null };

const time = (value: string | number): number => (typeof value === "number" ? value : Date.parse(value));

/** Revoked wins over expired: the owner's action is the more useful fact. A share without expiry never expires. */
export function shareStatus(share: ShareDates, now: number): ShareStatus {
  if (share.revokedAt !== null) return "revoked";
  if (share.expiresAt !== null && time(share.expiresAt) <= now) return "expired";
  return "active";
}

/** The link a viewer opens: the server answers with a path (`/share/<token>`); the page's origin makes it whole. */
export function absoluteShareUrl(origin: string, url: string): string {
  return new URL(url, origin.endsWith("/") ? origin : `${origin}/`).toString();
}

/** Expiry choices offered when a link is made; `null` means the link never expires. */
export const EXPIRY_CHOICES: readonly { days: number | null; label: string }[] = [
  { days: 1, label: "1 day" },
  { days: 7, label: "7 days" },
  { days: 30, label: "30 days" },
  { days: 90, label: "90 days" },
];

export const DEFAULT_EXPIRY_DAYS = 30;

/** A date as the share pages show it, or a word when there is none. */
export function formatWhen(value: string | number | null | undefined, none = "never"): string {
  if (value === null || value === undefined) return none;
  const ms = time(value);
  if (Number.isNaN(ms)) return String(value);
  return new Date(ms).toLocaleString();
}

export type RedactionHit = { kind: string; count: number };

/** "2 × api-key, 1 × private-key", or a sentence saying nothing was found. */
export function describeRedactions(hits: readonly RedactionHit[]): string {
  const found = hits.filter((hit) => hit.count > 0);
  if (found.length === 0) return "No secrets were found.";
  const total = found.reduce((sum, hit) => sum + hit.count, 0);
  return `${total} secret${total === 1 ? "" : "s"} will be replaced: ${found.map((hit) => `${hit.count} × ${hit.kind}`).join(", ")}.`;
}
