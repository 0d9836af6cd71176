"use client";

import { useState } from "react";
import { errorMessage } from "@/lib/errors";

type Props = {
  toolName: string;
  rule: string;
  denials: number;
  /** Absent in read-only views. */
  onAllow?: (rule: string) => Promise<void>;
};

/** After repeated denials: "allow `Bash(npm test:*)` for this session?", answerable in place. */
export function RuleSuggestion({ toolName, rule, denials, onAllow }: Props) {
  const [state, setState] = useState<{ kind: "open" } | { kind: "busy" } | { kind: "added" } | { kind: "dismissed" } | { kind: "failed"; message: string }>({
    kind: "open",
  });
  const times = denials === 1 ? "once" : `${denials} times`;
  if (state.kind === "dismissed") return null;
  return (
    <div className="message-marker notice info rule-suggestion" data-testid="rule-suggestion" data-rule={rule} data-state={state.kind}>
      <span>
        {toolName} was denied {times}. Allow <code>{rule}</code> for this session?
      </span>
      {state.kind === "added" ? (
        <span className="muted" data-testid="rule-suggestion-added">
          {" "}
          Added: {rule} applies until this session ends.
        </span>
      ) : onAllow ? (
        <>
          {" "}
          <button
            type="button"
            data-testid="rule-suggestion-allow"
            disabled={state.kind === "busy"}
            onClick={() => {
              setState({ kind: "busy" });
              onAllow(rule).then(
                () => setState({ kind: "added" }),
                (failure: unknown) => setState({ kind: "failed", message: errorMessage(failure) }),
              );
            }}
          >
            Allow for this session
          </button>{" "}
          <button type="button" data-testid="rule-suggestion-dismiss" disabled={state.kind === "busy"} onClick={() => setState({ kind: "dismissed" })}>
            Not now
          </button>
        </>
      ) : null}
      {state.kind === "failed" ? (
        <p className="form-error" role="alert">
          Could not add {rule}: {state.message}
        </p>
      ) : null}
    </div>
  );
}
