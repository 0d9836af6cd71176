"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { useTRPC, useTRPCClient } from "@/trpc/client";

/**
 * The MCP servers with their tools, resources and prompts. `mcp.changes` (a subscription, no polling)
 * says when a status moved; the list is then fetched again.
 */
export function useMcpServers() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const servers = useQuery(trpc.mcp.servers.queryOptions());
  const reconnect = useMutation(
    trpc.mcp.reconnect.mutationOptions({ onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.mcp.servers.queryKey() }) }),
  );

  useEffect(() => {
    let last = "";
    const subscription = client.mcp.changes.subscribe(undefined, {
      // The first message may already differ from what the query fetched (a server connected in between): refetch on it too.
      onData: (summary) => {
        const key = JSON.stringify(summary);
        if (key === last) return;
        last = key;
        void queryClient.invalidateQueries({ queryKey: trpc.mcp.servers.queryKey() });
      },
      onError: () => void queryClient.invalidateQueries({ queryKey: trpc.mcp.servers.queryKey() }),
    });
    return () => subscription.unsubscribe();
  }, [client, queryClient, trpc]);

  return { servers, reconnect };
}
