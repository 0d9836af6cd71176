import { httpBatchStreamLink, httpLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { browserKey, browserKeyHeaders } from "./browser-key.ts";

/**
 * Queries whose answer is one large JSON value (a whole timeline): sent alone, as plain JSON. The streamed
 * batch format walks every value of an answer looking for promises to stream, which took tens of seconds for
 * a 100,000-event timeline where plain JSON takes a fraction of one.
 */
const BULK_QUERIES: ReadonlySet<string> = new Set(["timeline.view", "timeline.page", "timeline.source", "view.timelineSource"]);

/**
 * How the browser talks to a tRPC router at `url`: subscriptions over SSE, bulk queries alone, everything else
 * batched and streamed. `signedIn` sends the browser key the main router needs (in a header; in
 * `connectionParams` for EventSource, which cannot set headers); the share router gets no credential at all.
 */
export function browserLinks(url: string, options: { signedIn: boolean }) {
  const headers = options.signedIn ? { headers: browserKeyHeaders } : {};
  return [
    splitLink({
      condition: (op) => op.type === "subscription",
      true: httpSubscriptionLink({ url, ...(options.signedIn ? { connectionParams: () => keyParams() } : {}) }),
      false: splitLink({
        condition: (op) => BULK_QUERIES.has(op.path),
        true: httpLink({ url, ...headers }),
        false: httpBatchStreamLink({ url, ...headers }),
      }),
    }),
  ];
}

function keyParams(): Record<string, string> {
  const key = browserKey();
  return key === undefined ? {} : { cairnKey: key };
}
