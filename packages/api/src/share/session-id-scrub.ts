/** What stands in for the session's id where a shared view must keep the field (the timeline's `sessionId`). */
export const SHARED_SESSION_PLACEHOLDER = "shared";

/**
 * A copy of `value` without the shared session's internal id: `sessionId` fields (transcript envelopes,
 * `forkedFrom`, `importedFrom`) are dropped and the id is cut out of every string (a transcript path in a
 * tool result, say). The id is no capability, but a share shows the shared content and nothing else.
 */
export function scrubSessionId<T>(value: T, sessionId: string): T {
  return scrub(value, sessionId) as T;
}

function scrub(value: unknown, sessionId: string): unknown {
  if (typeof value === "string") return sessionId !== "" && value.includes(sessionId) ? value.split(sessionId).join(SHARED_SESSION_PLACEHOLDER) : value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, sessionId));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === "sessionId" && typeof item === "string") continue;
    out[key] = scrub(item, sessionId);
  }
  return out;
}
