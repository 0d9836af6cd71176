import { describe, expect, it } from "vitest";
import { buildExportHtml, EXPORT_CSP, scriptSafeJson } from "./export-html";

describe("buildExportHtml", () => {
  const source = { sessionId: "s1", title: "<b>title</b>", cwd: null, imported: false, lines: [{ type: "user", text: "</script><script>alert(1)</script>\u2028" }] as never, sidechains: [] };

  it("embeds the data so that no text in it can end the script element", () => {
    const html = buildExportHtml("console.log('</script>')", source);
    const data = html.slice(html.indexOf('id="timeline-data">') + 19, html.indexOf("</script>", html.indexOf('id="timeline-data">')));
    expect(data).not.toContain("<");
    expect(JSON.parse(data)).toEqual(JSON.parse(JSON.stringify(source)));
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).toContain("<title>Timeline: &lt;b&gt;title&lt;/b&gt;</title>");
  });

  it("forbids every request with its CSP", () => {
    const html = buildExportHtml("", source);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${EXPORT_CSP}">`);
    expect(EXPORT_CSP).toBe("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:");
    expect(scriptSafeJson("a<b")).toBe('"a\\u003cb"');
  });
});
