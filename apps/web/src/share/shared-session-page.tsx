"use client";

import { useEffect, useState } from "react";
import { formatWhen } from "./share-format";
import { useSharedSession, type LiveStatus, type SharedSessionInfo } from "./use-shared-session";
import { MessageList } from "../chat/message-list";
import { preloadMarkdown } from "../chat/markdown-lazy";
import { ContinueAsCopy } from "./continue-as-copy";
import { ShareNotFound } from "./share-not-found";
import { SharedTimeline } from "./shared-timeline";
import "./share.css";

type Tab = "conversation" | "timeline";

/**
 * A shared session, read-only: the redacted transcript as text (the IDE's message list with no input, no
 * permission answers, no mode, model or interrupt controls), its timeline, and "Continue as copy".
 */
export function SharedSessionPage({ token }: { token: string }) {
  const { client, phase, chat, live } = useSharedSession(token);
  const [tab, setTab] = useState<Tab>("conversation");
  useEffect(preloadMarkdown, []);

  switch (phase.kind) {
    case "loading":
      return (
        <div className="splash" data-testid="share-loading">
          Opening the shared session…
        </div>
      );
    case "unavailable":
      return <ShareNotFound />;
    case "failed":
      return (
        <div className="splash error" role="alert" data-testid="share-error">
          <p>The shared session could not be loaded: {phase.message}</p>
          <button type="button" onClick={() => window.location.reload()}>
            Reload
          </button>
        </div>
      );
    case "ready":
      break;
  }
  const { info } = phase;
  return (
    <div className="share-page" data-testid="share-view" data-mode={info.mode} data-running={chat.running} data-live={live}>
      <div className="share-page-inner">
        <header className="share-header">
          <div>
            <h1 data-testid="share-title">{info.title}</h1>
            <ShareFacts info={info} live={live} running={chat.running} />
          </div>
          <ContinueAsCopy token={token} messageUuid={info.pinnedMessageUuid} />
        </header>
        <div className="share-tabs" role="tablist" aria-label="Views of the session">
          <button
            type="button"
            role="tab"
            className="small"
            data-testid="share-tab-conversation"
            aria-selected={tab === "conversation"}
            onClick={() => setTab("conversation")}
          >
            Conversation
          </button>
          <button
            type="button"
            role="tab"
            className="small"
            data-testid="share-tab-timeline"
            aria-selected={tab === "timeline"}
            onClick={() => setTab("timeline")}
          >
            Timeline
          </button>
        </div>
        {tab === "conversation" ? (
          <div className="share-transcript" role="tabpanel" data-testid="share-transcript">
            <MessageList items={chat.items} toolCalls={chat.toolCalls} empty={<p className="muted">This session has no messages yet.</p>} />
          </div>
        ) : (
          <div role="tabpanel" data-testid="share-timeline">
            <SharedTimeline token={token} client={client} />
          </div>
        )}
      </div>
    </div>
  );
}

function ShareFacts({ info, live, running }: { info: SharedSessionInfo; live: LiveStatus; running: boolean }) {
  return (
    <div className="share-meta">
      <span className="badge read-only" data-testid="share-readonly">
        read-only
      </span>
      {info.mode === "live" ? (
        <span className="badge live" data-testid="share-live" data-status={live}>
          live{live === "reconnecting" ? " · reconnecting…" : running ? " · running" : ""}
        </span>
      ) : (
        <span className="badge">snapshot</span>
      )}
      <span>Shared {formatWhen(info.createdAt)}</span>
      <span data-testid="share-expires">{info.expiresAt ? `Link expires ${formatWhen(info.expiresAt)}` : "Link does not expire"}</span>
      <span>Secrets are shown as [REDACTED:…].</span>
    </div>
  );
}
