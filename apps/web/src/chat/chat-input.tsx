"use client";

import { useEffect, useState } from "react";
import { SlashMenu, slashMatches, type SlashCommand } from "./slash-menu";

type Props = {
  running: boolean;
  /** Slash commands to complete as the user types `/`. */
  commands: readonly SlashCommand[];
  queued: number;
  /** The session is still loading: typing goes on, and a message sent meanwhile leaves once it has loaded. */
  disabled: boolean;
  onSend(prompt: string): Promise<boolean>;
  onInterrupt(): void;
};

/** Enter sends, Shift+Enter starts a new line, Esc interrupts a running prompt. */
export function ChatInput({ running, commands, queued, disabled, onSend, onInterrupt }: Props) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [sendWhenReady, setSendWhenReady] = useState(false);
  const [selected, setSelected] = useState(0);
  const [menuClosed, setMenuClosed] = useState(false);
  const matches = menuClosed ? [] : slashMatches(text, commands);
  const highlighted = matches[Math.min(selected, matches.length - 1)];
  const complete = (command: SlashCommand) => {
    setText(`/${command.name} `);
    setSelected(0);
  };

  const send = async () => {
    const prompt = text.trim();
    if (!prompt || sending) return;
    if (disabled) {
      setSendWhenReady(true);
      return;
    }
    setSending(true);
    try {
      if (await onSend(prompt)) setText("");
    } finally {
      setSending(false);
    }
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: the session having loaded is the trigger; `send` is this render's closure over its `onSend`.
  useEffect(() => {
    if (disabled || !sendWhenReady) return;
    setSendWhenReady(false);
    void send();
  }, [disabled, sendWhenReady]);

  return (
    <form
      className="chat-input"
      data-has-menu={matches.length > 0}
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <label htmlFor="chat-input" className="sr-only">
        Message the agent
      </label>
      {matches.length > 0 ? <SlashMenu matches={matches} selected={Math.min(selected, matches.length - 1)} onPick={complete} /> : null}
      <textarea
        id="chat-input"
        data-testid="chat-input"
        value={text}
        rows={3}
        aria-busy={disabled}
        placeholder={
          running ? "The agent is working. A new message waits for it (Esc interrupts)." : "Ask the agent… (Enter sends, Shift+Enter for a new line)"
        }
        onChange={(event) => {
          setText(event.target.value);
          setSelected(0);
          setMenuClosed(false);
        }}
        onKeyDown={(event) => {
          if (highlighted && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
            event.preventDefault();
            setSelected((index) => (index + (event.key === "ArrowDown" ? 1 : matches.length - 1)) % matches.length);
          } else if (highlighted && event.key === "Tab") {
            event.preventDefault();
            complete(highlighted);
          } else if (highlighted && event.key === "Escape") {
            event.preventDefault();
            setMenuClosed(true);
          } else if (highlighted && event.key === "Enter" && !event.shiftKey && text !== `/${highlighted.name}`) {
            // Enter picks the highlighted command; once the whole name is typed it sends.
            event.preventDefault();
            complete(highlighted);
          } else if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            void send();
          } else if (event.key === "Escape" && running) {
            event.preventDefault();
            onInterrupt();
          }
        }}
      />
      <div className="chat-input-actions">
        {queued > 0 ? (
          <span className="queued-note" data-testid="queued-count">
            {queued} waiting
          </span>
        ) : null}
        {running ? (
          <button type="button" className="danger" data-testid="chat-interrupt" onClick={onInterrupt} title="Interrupt (Esc)">
            Stop
          </button>
        ) : null}
        <button type="submit" className="primary" data-testid="chat-send" disabled={sending || sendWhenReady || !text.trim()}>
          {sending || sendWhenReady ? "Sending…" : "Send"}
        </button>
      </div>
    </form>
  );
}
