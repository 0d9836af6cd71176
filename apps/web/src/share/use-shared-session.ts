"use client";

import { useEffect, useState } from "react";
import { applyEvents } from "../chat/chat-reducer.ts";
import { initialChatState, type ChatState } from "../chat/chat-types.ts";
import { createEventBatcher } from "../chat/event-batcher.ts";
import { createShareViewClient, type ShareViewClient } from "../trpc/share-client.ts";
import { stateFromSharedConversation, withoutPermissionRequests } from "./share-view-state.ts";

type ViewSession = Awaited<ReturnType<ShareViewClient["view"]["session"]["query"]>>;
/** Everything the share router says about the link, except the conversation (that lives in the chat state). */
export type SharedSessionInfo = Omit<ViewSession, "messages">;

export type SharedSessionPhase =
  | { kind: "loading" }
  /** Unknown, expired or revoked: the page says only that the link is not available. */
  | { kind: "unavailable" }
  | { kind: "failed"; message: string }
  | { kind: "ready"; info: SharedSessionInfo };

export type LiveStatus = "off" | "connecting" | "live" | "reconnecting";

const UNAVAILABLE_CODES = new Set(["NOT_FOUND", "FORBIDDEN", "UNAUTHORIZED"]);

function isUnavailable(error: unknown): boolean {
  const data = typeof error === "object" && error !== null ? (error as { data?: { code?: unknown } | null }).data : undefined;
  return typeof data?.code === "string" && UNAVAILABLE_CODES.has(data.code);
}

/**
 * A shared session through the share router only: the redacted conversation, then, for a live link, its
 * events after the last one the server had, folded in with the IDE's chat reducer.
 */
export function useSharedSession(token: string) {
  const [client] = useState(createShareViewClient);
  const [phase, setPhase] = useState<SharedSessionPhase>({ kind: "loading" });
  const [chat, setChat] = useState<ChatState>(initialChatState);
  const [live, setLive] = useState<LiveStatus>("off");

  useEffect(() => {
    const controller = new AbortController();
    let subscription: { unsubscribe(): void } | undefined;
    // Deltas arrive faster than frames: applied in batches, as the IDE does.
    const events = createEventBatcher((batch) => setChat((current) => withoutPermissionRequests(applyEvents(current, batch))));

    setPhase({ kind: "loading" });
    setLive("off");
    (async () => {
      const { messages, ...info } = await client.view.session.query({ token }, { signal: controller.signal });
      if (controller.signal.aborted) return;
      const base = stateFromSharedConversation({ ...info, messages });
      setChat(base);
      setPhase({ kind: "ready", info });
      if (info.mode !== "live") return;
      setLive("connecting");
      subscription = client.view.events.subscribe(
        { token, lastEventId: base.lastEventId },
        {
          onStarted: () => setLive("live"),
          onData: ({ id, data }) => events.push({ id, event: data }),
          onConnectionStateChange: (connection) => {
            if (connection.state === "connecting" && connection.error) setLive("reconnecting");
            if (connection.state === "pending") setLive("live");
          },
          onError: (error) => {
            setLive("off");
            // Revoked or expired while open: say so instead of freezing on the last frame.
            if (isUnavailable(error)) setPhase({ kind: "unavailable" });
            else setPhase({ kind: "failed", message: error.message });
          },
        },
      );
    })().catch((error: unknown) => {
      if (controller.signal.aborted) return;
      if (isUnavailable(error)) setPhase({ kind: "unavailable" });
      else setPhase({ kind: "failed", message: error instanceof Error ? error.message : String(error) });
    });

    return () => {
      controller.abort();
      subscription?.unsubscribe();
      events.drain();
    };
  }, [client, token]);

  return { client, phase, chat, live };
}
