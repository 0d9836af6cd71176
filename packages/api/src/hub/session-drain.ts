import type { LiveSession } from "./live-session.ts";
import type { SessionOwnership } from "./session-ownership.ts";

/**
 * Graceful shutdown of a node holding session leases: every idle session is handed over at once
 * (its lease released, so the next command on any node takes it cleanly), a running prompt may
 * finish within `timeoutMs`, and one still running then is interrupted (its turn recorded as
 * interrupted, as a user's interrupt would) before its lease is released.
 */
export async function drainSessions(ownership: SessionOwnership, live: ReadonlyMap<string, LiveSession>, timeoutMs: number): Promise<void> {
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
  await Promise.all(
    [...live].map(async ([sessionId, session]) => {
      if (!ownership.holds(sessionId)) return;
      if (session.running) await Promise.race([session.idle(), deadline]);
      if (session.running) {
        session.interrupt();
        await session.idle();
      }
      await session.flush().catch(() => undefined);
      await ownership.release(sessionId).catch(() => undefined);
    }),
  );
}
