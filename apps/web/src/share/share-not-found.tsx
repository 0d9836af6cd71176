import "./share.css";

/** What an unknown, expired or revoked link shows: nothing about why, nothing about the session. */
export function ShareNotFound() {
  return (
    <main className="splash" data-testid="share-not-found">
      <h1>This link is not available</h1>
      <p className="muted">It may have expired or been revoked by the person who shared it, or the address is incomplete.</p>
    </main>
  );
}
