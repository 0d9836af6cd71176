"use client";

import type { TRPCClient } from "@trpc/client";
import { createContext, useContext, type ReactNode } from "react";
import type { AppRouter } from "@cairn/api/router";

/**
 * The tRPC client the timeline's own pages use, given by context: the IDE's Next pages hand it theirs, the timeline
 * page's own script (app-entry.tsx) makes one, so the timeline does not need the IDE's React Query providers.
 */
const TimelineClientContext = createContext<TRPCClient<AppRouter> | null>(null);

export function TimelineClientProvider({ client, children }: { client: TRPCClient<AppRouter>; children: ReactNode }) {
  return <TimelineClientContext.Provider value={client}>{children}</TimelineClientContext.Provider>;
}

export function useTimelineClient(): TRPCClient<AppRouter> {
  const client = useContext(TimelineClientContext);
  if (!client) throw new Error("The timeline has no tRPC client (TimelineClientProvider is missing)");
  return client;
}
