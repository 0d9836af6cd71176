import { httpBatchStreamLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { browserKey, browserKeyHeaders } from "./browser-key.ts";

/**
 * How the browser talks to a tRPC router at `url`: subscriptions over SSE, everything else batched and streamed.
 * `signedIn` sends the browser key the main router needs (in a header; in `connectionParams` for EventSource,
 * which cannot set headers); the share router gets no credential at all.
 */
export function browserLinks(url: string, options: { signedIn: boolean }) {
  return [
    splitLink({
      condition: (op) => op.type === "subscription",
      true: httpSubscriptionLink({ url, ...(options.signedIn ? { connectionParams: () => keyParams() } : {}) }),
      false: httpBatchStreamLink({ url, ...(options.signedIn ? { headers: browserKeyHeaders } : {}) }),
    }),
  ];
}

function keyParams(): Record<string, string> {
  const key = browserKey();
  return key === undefined ? {} : { cairnKey: key };
}
