import { httpBatchStreamLink, httpSubscriptionLink, splitLink } from "@trpc/client";

/** How the browser talks to a tRPC router at `url`: subscriptions over SSE, everything else batched and streamed. */
export function browserLinks(url: string) {
  return [
    splitLink({
      condition: (op) => op.type === "subscription",
      true: httpSubscriptionLink({ url }),
      false: httpBatchStreamLink({ url }),
    }),
  ];
}
