import type { ChatState } from "./chat-types.ts";

/** Bump when ChatState's shape changes, so an old tab's saved state is ignored instead of misread. */
const FORMAT = 3;
const keyOf = (sessionId: string) => `cairn:chat:${sessionId}`;

type Saved = { format: number; sessionId: string; state: ChatState };

/**
 * The chat view and the id of the last event it applied, kept per tab in sessionStorage, so a reload
 * restores what was on screen and resumes the stream right after it (streamed text included).
 */
export function saveChat(storage: Storage, sessionId: string, state: ChatState): boolean {
  if (state.lastEventId === null) return false;
  const saved: Saved = { format: FORMAT, sessionId, state };
  try {
    storage.setItem(keyOf(sessionId), JSON.stringify(saved));
    return true;
  } catch {
    // Over the quota: a stale copy would resume at the wrong place, so drop it and fall back to session.get.
    storage.removeItem(keyOf(sessionId));
    return false;
  }
}

export function loadChat(storage: Storage, sessionId: string): ChatState | null {
  const raw = storage.getItem(keyOf(sessionId));
  if (!raw) return null;
  try {
    const saved = JSON.parse(raw) as Partial<Saved>;
    if (saved.format !== FORMAT || saved.sessionId !== sessionId || !saved.state || typeof saved.state.lastEventId !== "string") return null;
    if (!Array.isArray(saved.state.items) || typeof saved.state.toolCalls !== "object") return null;
    return saved.state;
  } catch {
    return null;
  }
}

const ACTIVE_KEY = "cairn:active-session";

export function saveActiveSession(storage: Storage, sessionId: string | null): void {
  if (sessionId) storage.setItem(ACTIVE_KEY, sessionId);
  else storage.removeItem(ACTIVE_KEY);
}

export function loadActiveSession(storage: Storage): string | null {
  return storage.getItem(ACTIVE_KEY);
}
