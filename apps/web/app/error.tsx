"use client";

/** A rendering failure shows what happened and a way back, instead of a blank page. */
export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="splash error" role="alert">
      <p>Something in the page failed: {error.message}</p>
      <p className="muted">Your sessions keep running on the server; reloading the page reconnects to them.</p>
      <div className="toolbar">
        <button type="button" onClick={reset}>
          Try again
        </button>
        <button type="button" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    </div>
  );
}
