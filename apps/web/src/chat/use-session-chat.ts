"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { addLocalPrompt, applyEvents } from "./chat-reducer";
import { stateFromSnapshot } from "./chat-snapshot";
import { loadChat, saveChat } from "./chat-storage";
import { initialChatState, type ChatState, type SessionEvent } from "./chat-types";
import { createEventBatcher } from "./event-batcher";
import { useTRPCClient } from "@/trpc/client";

export type StreamStatus = "idle" | "loading" | "live" | "reconnecting" | "failed";

/** How often the view is written to sessionStorage while events stream in (also on pagehide). */
const SAVE_INTERVAL_MS = 400;

/**
 * The chat of one session: the view restored from this tab's sessionStorage (or built from `session.get`),
 * kept current by `session.events` from the last applied event id, so a reload continues the stream.
 * `isNew` names sessions this tab has just created: they are read from their first event instead.
 */
export function useSessionChat(sessionId: string | null, options: { isNew(sessionId: string): boolean; onLiveEvent?(event: SessionEvent): void }) {
  const isNew = useRef(options.isNew);
  isNew.current = options.isNew;
  const onLiveEvent = useRef(options.onLiveEvent);
  onLiveEvent.current = options.onLiveEvent;
  const client = useTRPCClient();
  const [state, setState] = useState<ChatState>(initialChatState);
  const [status, setStatus] = useState<StreamStatus>("idle");
  const [failure, setFailure] = useState<{ message: string; notFound: boolean } | null>(null);
  const latest = useRef(state);
  latest.current = state;

  useEffect(() => {
    if (!sessionId) {
      setState(initialChatState());
      setStatus("idle");
      return;
    }
    const storage = window.sessionStorage;
    const controller = new AbortController();
    let saveTimer: ReturnType<typeof setTimeout> | undefined;
    let subscription: { unsubscribe(): void } | undefined;

    const save = () => {
      saveTimer = undefined;
      saveChat(storage, sessionId, latest.current);
    };
    const events = createEventBatcher((batch) => {
      setState((current) => {
        const next = applyEvents(current, batch);
        latest.current = next;
        return next;
      });
      saveTimer ??= setTimeout(save, SAVE_INTERVAL_MS);
    });
    const onPageHide = () => {
      events.flush();
      save();
    };
    window.addEventListener("pagehide", onPageHide);

    // Nothing of the previous session stays on screen while this one loads.
    latest.current = initialChatState();
    setState(latest.current);
    setStatus("loading");
    setFailure(null);
    (async () => {
      // A session this tab just created is read from its first event (seq 0), so nothing published between
      // its creation and this subscription (a fast run's result) can fall between a snapshot and the stream.
      const base =
        loadChat(storage, sessionId) ??
        (isNew.current(sessionId) ? initialChatState() : stateFromSnapshot(await client.session.get.query({ sessionId }, { signal: controller.signal })));
      if (controller.signal.aborted) return;
      latest.current = base;
      setState(base);
      subscription = client.session.events.subscribe(
        { sessionId, lastEventId: base.lastEventId },
        {
          onStarted: () => setStatus("live"),
          onData: ({ id, data }) => {
            events.push({ id, event: data });
            onLiveEvent.current?.(data);
          },
          onConnectionStateChange: (connection) => {
            if (connection.state === "connecting" && connection.error) setStatus("reconnecting");
            if (connection.state === "pending") setStatus("live");
          },
          onError: (error) => {
            setStatus("failed");
            setFailure({ message: error.message, notFound: error.data?.code === "NOT_FOUND" });
          },
        },
      );
    })().catch((error: unknown) => {
      if (controller.signal.aborted) return;
      setStatus("failed");
      const notFound = typeof error === "object" && error !== null && (error as { data?: { code?: string } }).data?.code === "NOT_FOUND";
      setFailure({ message: error instanceof Error ? error.message : String(error), notFound });
    });

    return () => {
      controller.abort();
      subscription?.unsubscribe();
      window.removeEventListener("pagehide", onPageHide);
      if (saveTimer) clearTimeout(saveTimer);
      // Not through setState: the next session's view must not receive this one's events.
      saveChat(storage, sessionId, applyEvents(latest.current, events.drain()));
    };
  }, [client, sessionId]);

  const localIds = useRef(0);
  const showPrompt = useCallback((text: string) => {
    setState((current) => addLocalPrompt(current, text, `${Date.now()}-${++localIds.current}`));
  }, []);

  return { state, status, failure, showPrompt };
}
