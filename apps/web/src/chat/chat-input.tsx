"use client";

import { useState } from "react";

type Props = {
  running: boolean;
  queued: number;
  disabled: boolean;
  onSend(prompt: string): Promise<boolean>;
  onInterrupt(): void;
};

/** Enter sends, Shift+Enter starts a new line, Esc interrupts a running prompt. */
export function ChatInput({ running, queued, disabled, onSend, onInterrupt }: Props) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);

  const send = async () => {
    const prompt = text.trim();
    if (!prompt || sending || disabled) return;
    setSending(true);
    try {
      if (await onSend(prompt)) setText("");
    } finally {
      setSending(false);
    }
  };

  return (
    <form
      className="chat-input"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <label htmlFor="chat-input" className="sr-only">
        Message the agent
      </label>
      <textarea
        id="chat-input"
        data-testid="chat-input"
        value={text}
        rows={3}
        disabled={disabled}
        placeholder={running ? "The agent is working. A new message waits for it (Esc interrupts)." : "Ask the agent… (Enter sends, Shift+Enter for a new line)"}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            void send();
          } else if (event.key === "Escape" && running) {
            event.preventDefault();
            onInterrupt();
          }
        }}
      />
      <div className="chat-input-actions">
        {queued > 0 ? <span className="queued-note" data-testid="queued-count">{queued} waiting</span> : null}
        {running ? (
          <button type="button" className="danger" data-testid="chat-interrupt" onClick={onInterrupt} title="Interrupt (Esc)">
            Stop
          </button>
        ) : null}
        <button type="submit" className="primary" data-testid="chat-send" disabled={disabled || sending || !text.trim()}>
          {sending ? "Sending…" : "Send"}
        </button>
      </div>
    </form>
  );
}
