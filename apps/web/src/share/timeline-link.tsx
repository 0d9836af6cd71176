import "./share.css";

/** The session bar's Timeline entry: the session's timeline page. */
export function TimelineLink({ sessionId }: { sessionId: string | null }) {
  if (!sessionId) {
    return (
      <a className="button-link" data-testid="timeline-link" aria-disabled="true" title="Start a session to see its timeline">
        Timeline
      </a>
    );
  }
  return (
    <a
      className="button-link"
      data-testid="timeline-link"
      href={`/sessions/${encodeURIComponent(sessionId)}/timeline`}
      title="The session's timeline: turns, tool calls, permission decisions"
    >
      Timeline
    </a>
  );
}
