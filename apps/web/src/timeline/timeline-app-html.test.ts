import { describe, expect, it } from "vitest";
import { earlyViewScript } from "./early-view";
import { TIMELINE_APP_SCRIPT_URL, TIMELINE_APP_STYLES_URL, timelineAppHtml } from "./timeline-app-html";

describe("timelineAppHtml", () => {
  it("asks for the timeline first, then loads the page's styles and its deferred script, the session id on the root", () => {
    const html = timelineAppHtml("abc_1-2", "0123abcd");
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    const early = html.indexOf(`<script>${earlyViewScript("abc_1-2")}</script>`);
    const styles = html.indexOf(`<link rel="stylesheet" href="${TIMELINE_APP_STYLES_URL}?v=0123abcd">`);
    const script = html.indexOf(`<script defer src="${TIMELINE_APP_SCRIPT_URL}?v=0123abcd"></script>`);
    // An inline script placed after a stylesheet would wait for it to load before sending the request.
    expect(early).toBeGreaterThan(0);
    expect(styles).toBeGreaterThan(early);
    expect(script).toBeGreaterThan(styles);
    expect(html).toContain('<div id="timeline-root" style="height:100%" data-session-id="abc_1-2">');
    expect(html).toContain('data-testid="timeline-loading"');
    expect(html).toContain("<title>Timeline · Cairn</title>");
  });

  it("refuses what is not a session id (nothing else is written into the page)", () => {
    for (const id of ['a"><script>alert(1)</script>', "", "a/b", "x".repeat(129), "a b"]) expect(() => timelineAppHtml(id, "v")).toThrow(/not a session id/);
  });
});
