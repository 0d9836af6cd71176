import { useState } from "react";
import type { PermissionAnswer } from "@/trpc/types";

type DenyFormProps = {
  /** The textarea's id (its label points at it). */
  id: string;
  feedbackTestId: string;
  submitTestId: string;
  label: string;
  placeholder: string;
  rows: number;
  submitLabel: string;
  submitClassName?: string | undefined;
  busy: boolean;
  answer: (value: PermissionAnswer) => Promise<void>;
};

/** Deny (or keep planning) with optional words for the agent: they go back as the denial's feedback. */
export function DenyForm({ id, feedbackTestId, submitTestId, label, placeholder, rows, submitLabel, submitClassName, busy, answer }: DenyFormProps) {
  const [feedback, setFeedback] = useState("");
  return (
    <form
      className="permission-deny"
      onSubmit={(event) => {
        event.preventDefault();
        const text = feedback.trim();
        void answer(text ? { behavior: "deny", feedback: text } : { behavior: "deny" });
      }}
    >
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <textarea
        id={id}
        data-testid={feedbackTestId}
        rows={rows}
        value={feedback}
        placeholder={placeholder}
        onChange={(event) => setFeedback(event.target.value)}
      />
      <button type="submit" className={submitClassName} data-testid={submitTestId} disabled={busy}>
        {submitLabel}
      </button>
    </form>
  );
}
