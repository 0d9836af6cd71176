import { describe, expect, it } from "vitest";
import { buildExportHtml, EXPORT_CSP, readEmbeddedSource, scriptSafeJson } from "./export-html";

describe("buildExportHtml", () => {
  const source = {
    sessionId: "s1",
    title: "<b>title</b>",
    cwd: null,
    imported: false,
    lines: [{ type: "user", text: "</script><script>alert(1)</script>\u2028" }] as never,
    sidechains: [],
  };

  it("embeds the data so that no text in it can end the script element", async () => {
    const html = await buildExportHtml("console.log('</script>')", source);
    const marker = 'id="timeline-data" data-encoding="json">';
    const data = html.slice(html.indexOf(marker) + marker.length, html.indexOf("</script>", html.indexOf(marker)));
    expect(data).not.toContain("<");
    expect(JSON.parse(data)).toEqual(JSON.parse(JSON.stringify(source)));
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).toContain("<title>Timeline: &lt;b&gt;title&lt;/b&gt;</title>");
  });

  it("gzips a large source into base64 and reads it back", async () => {
    const html = await buildExportHtml("", source, { compressAboveChars: 10 });
    const match = /<script type="application\/octet-stream" id="timeline-data" data-encoding="gzip-base64">([A-Za-z0-9+/=]+)<\/script>/.exec(html);
    expect(match).not.toBeNull();
    expect(await readEmbeddedSource({ encoding: "gzip-base64", text: match![1]! })).toEqual(JSON.parse(JSON.stringify(source)));
  });

  it("forbids every request with its CSP", async () => {
    const html = await buildExportHtml("", source);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${EXPORT_CSP}">`);
    expect(EXPORT_CSP).toBe("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:");
    expect(scriptSafeJson("a<b")).toBe('"a\\u003cb"');
  });
});
