"use client";

import { useRef, useState } from "react";

type Props = { value: string; label: string; testId: string };

/** A read-only field with a Copy button; the text stays selectable when the clipboard API is unavailable (plain http). */
export function CopyField({ value, label, testId }: Props) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("yes");
    } catch {
      input.current?.select();
      setCopied("failed");
    }
  };
  return (
    <div className="share-url-row">
      <input ref={input} aria-label={label} data-testid={testId} readOnly value={value} onFocus={(event) => event.currentTarget.select()} />
      <button type="button" className="small" data-testid={`${testId}-copy`} onClick={() => void copy()}>
        {copied === "yes" ? "Copied" : "Copy"}
      </button>
      {copied === "failed" ? <span className="muted small-text">Press Ctrl+C to copy.</span> : null}
    </div>
  );
}
