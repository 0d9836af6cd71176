"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { SessionEvent } from "../trpc/types.ts";
import { attentionOf, titleWithBadge } from "./attention.ts";

const NOTIFY_KEY = "cairn:notify";

export type NotifyPermission = NotificationPermission | "unsupported";

function browserNotifications(): typeof Notification | undefined {
  return typeof window !== "undefined" && "Notification" in window ? window.Notification : undefined;
}

/**
 * While the tab is hidden, counts what wants the user back (a permission prompt, a run that ended, an
 * error that stopped one) in the tab title, and, when the user turned notifications on and the browser
 * allows them, shows a notification for each. The count clears when the tab is shown again.
 */
export function useAttention() {
  const [enabled, setEnabledState] = useState(false);
  const [permission, setPermission] = useState<NotifyPermission>("default");
  const count = useRef(0);
  const baseTitle = useRef<string | null>(null);
  const enabledRef = useRef(enabled);
  enabledRef.current = enabled;

  // Read after hydration: the setting is this browser's (localStorage), the permission the browser's.
  useEffect(() => {
    setEnabledState(window.localStorage.getItem(NOTIFY_KEY) === "1");
    setPermission(browserNotifications()?.permission ?? "unsupported");
  }, []);

  useEffect(() => {
    const onVisibility = () => {
      if (document.visibilityState === "hidden" || count.current === 0) return;
      count.current = 0;
      if (baseTitle.current !== null) document.title = baseTitle.current;
    };
    document.addEventListener("visibilitychange", onVisibility);
    return () => document.removeEventListener("visibilitychange", onVisibility);
  }, []);

  const setEnabled = useCallback(async (next: boolean) => {
    window.localStorage.setItem(NOTIFY_KEY, next ? "1" : "0");
    setEnabledState(next);
    const api = browserNotifications();
    if (!next || !api) return;
    if (api.permission === "default") setPermission(await api.requestPermission());
    else setPermission(api.permission);
  }, []);

  const onEvent = useCallback((event: SessionEvent) => {
    const attention = attentionOf(event);
    if (attention === null || document.visibilityState !== "hidden") return;
    if (count.current === 0) baseTitle.current = document.title;
    count.current += 1;
    document.title = titleWithBadge(baseTitle.current ?? document.title, count.current);
    const api = browserNotifications();
    if (!enabledRef.current || api?.permission !== "granted") return;
    const notification = new api(attention.title, { body: attention.body, tag: `cairn-${attention.kind}` });
    notification.onclick = () => {
      window.focus();
      notification.close();
    };
  }, []);

  return { enabled, permission, setEnabled, onEvent };
}
