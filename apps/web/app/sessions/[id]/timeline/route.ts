import { TIMELINE_NOT_FOUND_HTML, TIMELINE_SESSION_ID, timelineAppHtml } from "@/timeline/timeline-app-html";

/**
 * A session's timeline: its own small page (timeline-app-html.ts), not a Next page, so the timeline is drawn and
 * answers keys without waiting for Next's router and React's hydration of the page.
 */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  const headers = { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" };
  if (!TIMELINE_SESSION_ID.test(id)) return new Response(TIMELINE_NOT_FOUND_HTML, { status: 404, headers });
  // Set by next.config.ts when the app is built (the content hash of public/timeline-app.*).
  return new Response(timelineAppHtml(id, process.env.CAIRN_TIMELINE_APP_VERSION ?? "unbuilt"), { headers });
}
