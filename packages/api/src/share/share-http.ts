import { z } from "zod";
import { SHARE_API_PREFIX } from "./share-headers.ts";

export const SHARE_EVENTS_PATH = `${SHARE_API_PREFIX}view.events`;
const shareEventsInput = z.object({ token: z.string() });

/** The token in a `view.events?input={"token":…}` URL ("" when there is none: the router answers that). */
export function shareTokenOf(rawUrl: string | undefined): string {
  const input = new URL(rawUrl ?? "/", "http://cairn.invalid").searchParams.get("input");
  if (input === null) return "";
  try {
    return shareEventsInput.safeParse(JSON.parse(input)).data?.token ?? "";
  } catch {
    return "";
  }
}

/** What a client that ran out of failed share lookups sees instead of any share page (never the 404 page: the link may work). */
export const RATE_LIMITED_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex, nofollow"><title>Too many requests · Cairn</title></head>
<body style="font-family: system-ui, sans-serif; background: #15171c; color: #d8dbe2; padding: 3rem"><h1>Too many requests</h1>
<p>Too many share links that do not work were opened from your address. Try again later (in a minute).</p></body></html>
`;
