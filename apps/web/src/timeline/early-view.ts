/**
 * The timeline page's first request, sent by an inline script while the page's own scripts still download and
 * start (the request otherwise leaves only once React has hydrated the page, after it has loaded). The hook takes
 * the answer instead of asking again; when there is none, or anything about it is off, it asks the usual way.
 */

/** Where the inline script leaves the request in flight (a property of `window`). */
const EARLY_VIEW_KEY = "__cairnEarlyTimelineView";
const BROWSER_KEY_STORAGE = "cairn:browser-key";
const BROWSER_KEY_HEADER = "x-cairn-key";

/** What the inline script leaves: the request's answer as text, and when it was sent and answered (performance.now()). */
type EarlyView = { sessionId: string; sent: number; answer: Promise<{ ok: boolean; text: string; received: number }> };

/** The `timeline.view` answer (TimelineViewAnswer in @cairn/api), as the page reads it. */
export type EarlyViewAnswer =
  | { changed: false; version: string }
  | { changed: true; timelineJson: string; complete: boolean; rest?: { version: string; from: number; total: number }; detailsJson?: string };

/**
 * Whether `value` is tRPC's answer `{ result: { data: EarlyViewAnswer } }`. Checked by hand, not with zod: zod
 * would be the largest script on this page (some 110 KB), loaded and compiled before the timeline can show.
 */
function viewAnswerIn(value: unknown): EarlyViewAnswer | undefined {
  const data = field(field(value, "result"), "data");
  const changed = field(data, "changed");
  if (changed === false) return typeof field(data, "version") === "string" ? (data as EarlyViewAnswer) : undefined;
  if (changed !== true || typeof field(data, "timelineJson") !== "string" || typeof field(data, "complete") !== "boolean") return undefined;
  const details = field(data, "detailsJson");
  if (details !== undefined && typeof details !== "string") return undefined;
  const rest = field(data, "rest");
  if (rest === undefined) return data as EarlyViewAnswer;
  const counts = [field(rest, "from"), field(rest, "total")];
  const valid = typeof field(rest, "version") === "string" && counts.every((count) => typeof count === "number" && Number.isInteger(count) && count >= 0);
  return valid ? (data as EarlyViewAnswer) : undefined;
}

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;
}

/**
 * The inline script for `sessionId` (checked by the route: letters, digits, `_` and `-`): a `timeline.view` query
 * over plain HTTP, as the tRPC client sends it (its input in the URL, the browser key in a header). A sign-in that
 * just landed (the key still in the address bar) is left to the page's own client.
 */
export function earlyViewScript(sessionId: string): string {
  const input = encodeURIComponent(JSON.stringify({ sessionId }));
  const url = `/api/trpc/timeline.view?input=${input}`;
  // JSON text of a checked id and a URL-encoded path: nothing in it can close the script element.
  return [
    "(function(){try{",
    'if(location.hash.indexOf("#cairn-key=")===0)return;',
    `var key=localStorage.getItem(${JSON.stringify(BROWSER_KEY_STORAGE)});`,
    "var headers={};",
    `if(key)headers[${JSON.stringify(BROWSER_KEY_HEADER)}]=key;`,
    "var sent=performance.now();",
    `window[${JSON.stringify(EARLY_VIEW_KEY)}]={sessionId:${JSON.stringify(sessionId)},sent:sent,answer:fetch(${JSON.stringify(url)},{headers:headers,credentials:"same-origin"})`,
    ".then(function(response){return response.text().then(function(text){return {ok:response.ok,text:text,received:performance.now()};});})};",
    "}catch(error){}})();",
  ].join("");
}

/**
 * The answer the inline script asked for, once (the next look asks the usual way): undefined when there was no
 * such request for this session, it failed, or its answer is not a `timeline.view` answer.
 */
export async function takeEarlyView(
  sessionId: string,
  holder: Record<string, unknown> = globalThis as unknown as Record<string, unknown>,
): Promise<{ answer: EarlyViewAnswer; sent: number; received: number } | undefined> {
  const early = holder[EARLY_VIEW_KEY] as EarlyView | undefined;
  if (!early || early.sessionId !== sessionId) return undefined;
  delete holder[EARLY_VIEW_KEY];
  try {
    const { ok, text, received } = await early.answer;
    if (!ok) return undefined;
    const answer = viewAnswerIn(JSON.parse(text));
    return answer ? { answer, sent: early.sent, received } : undefined;
  } catch {
    return undefined;
  }
}
