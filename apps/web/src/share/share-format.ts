/** The link a viewer opens: the server answers with a path (`/share/<token>`); the page's origin makes it whole. */
export function absoluteShareUrl(origin: string, url: string): string {
  return new URL(url, origin.endsWith("/") ? origin : `${origin}/`).toString();
}

/** Expiry choices offered when a link is made (every link expires). */
export const EXPIRY_CHOICES: readonly { days: number; label: string }[] = [
  { days: 1, label: "1 day" },
  { days: 7, label: "7 days" },
  { days: 30, label: "30 days" },
  { days: 90, label: "90 days" },
  { days: 365, label: "1 year" },
];

export const DEFAULT_EXPIRY_DAYS = 30;

/** A date as the share pages show it, or a word when there is none. */
export function formatWhen(value: string | number | null | undefined, none = "never"): string {
  if (value === null || value === undefined) return none;
  const ms = typeof value === "number" ? value : Date.parse(value);
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
