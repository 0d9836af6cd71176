import {
  buildTimeline,
  compactHead,
  compactTimeline,
  searchTextOf,
  syntheticTimelineSource,
  timelineQueryMatcher,
  timelineTableOf,
  timelineTableOfRows,
  type TimelineRows,
  type TimelineTable,
} from "@cairn/core/timeline";
import { describe, expect, it } from "vitest";
import {
  buildExportHtml,
  DETAIL_PART_EVENTS,
  EXPORT_CSP,
  EXPORT_PART_IDS,
  HEAD_EVENTS,
  PIECE_CHARS,
  pieceId,
  readEmbeddedJson,
  scriptSafeJson,
  type EmbeddedData,
} from "./export-html";
import { readExportedTimeline } from "./exported-timeline";

/** The embedded parts of an exported file, by id, as its viewer finds them (a part's pieces joined). */
function partsOf(html: string): Map<string, EmbeddedData> {
  const elements = new Map<string, { encoding?: string; pieces: number; text: string }>();
  for (const match of html.matchAll(/<script type="[^"]+" id="([^"]+)"((?: data-[a-z-]+="[^"]*")*)>([^<]*)<\/script>/g)) {
    const attribute = (name: string) => new RegExp(` data-${name}="([^"]*)"`).exec(match[2]!)?.[1];
    elements.set(match[1]!, { encoding: attribute("encoding"), pieces: Number(attribute("pieces") ?? 1), text: match[3]! });
  }
  const parts = new Map<string, EmbeddedData>();
  for (const [id, element] of elements) {
    if (!element.encoding) continue;
    let text = element.text;
    for (let index = 1; index < element.pieces; index++) text += elements.get(pieceId(id, index))!.text;
    parts.set(id, { encoding: element.encoding as EmbeddedData["encoding"], text });
  }
  return parts;
}

/** The viewer's table as rows (its events made from the columns), without its version. */
function withoutVersion(table: TimelineTable): TimelineRows {
  const { version: _version, ...rest } = table as TimelineTable & { version?: string };
  return { ...rest, events: rest.events.toRows() };
}

describe("buildExportHtml", () => {
  const source = {
    sessionId: "s1",
    title: "<b>title</b>",
    cwd: null,
    imported: false,
    lines: [
      { type: "user", uuid: "u1", timestamp: "2026-11-01T09:00:00.000Z", message: { role: "user", content: "</script><script>alert(1)</script>\u2028" } },
    ] as never,
    sidechains: [],
  };

  it("embeds the data so that no text in it can end a script element", async () => {
    const html = await buildExportHtml("console.log('</script>')", source);
    const parts = partsOf(html);
    expect([...parts.keys()]).toEqual([EXPORT_PART_IDS.rows, EXPORT_PART_IDS.search, EXPORT_PART_IDS.details(0)]);
    for (const part of parts.values()) expect(part.text).not.toContain("<");
    // The viewer, the rows, the search texts and one part of details: nothing else closes a script.
    expect(html.match(/<\/script>/g)).toHaveLength(4);
    expect(html).toContain("<title>Timeline: &lt;b&gt;title&lt;/b&gt;</title>");
    const detail = (await readEmbeddedJson(parts.get(EXPORT_PART_IDS.details(0))!)) as Array<{ kind: string; text: string }>;
    expect(detail[0]).toMatchObject({ kind: "prompt", text: "</script><script>alert(1)</script>\u2028" });
  });

  it("carries the timeline as built at export: its first events, every row, every event's details in parts, the search texts", async () => {
    const large = syntheticTimelineSource({ events: 2_500, sidechains: 2 });
    const built = buildTimeline(large);
    expect(built.events.length).toBeGreaterThan(HEAD_EVENTS);
    // Small parts and a low threshold, so several parts are read and both encodings are used.
    const html = await buildExportHtml("", large, { detailPartEvents: 700, compressAboveChars: 250_000 });
    const parts = partsOf(html);
    const encodings = new Set([...parts.values()].map((part) => part.encoding));
    expect(encodings).toEqual(new Set(["json", "gzip-base64"]));
    // The first rows and their details, every row, the search texts, the other details.
    expect([...parts.keys()].slice(0, 6)).toEqual([
      EXPORT_PART_IDS.head,
      EXPORT_PART_IDS.details(0),
      EXPORT_PART_IDS.details(1),
      EXPORT_PART_IDS.details(2),
      EXPORT_PART_IDS.rows,
      EXPORT_PART_IDS.search,
    ]);
    expect(parts.size).toBe(3 + Math.ceil(built.events.length / 700));
    // A large part is cut into pieces of at most PIECE_CHARS, one script element each.
    const rowPieces = Number(/id="timeline-data" data-encoding="[^"]+" data-pieces="(\d+)"/.exec(html)?.[1]);
    expect(rowPieces).toBe(Math.ceil(parts.get(EXPORT_PART_IDS.rows)!.text.length / PIECE_CHARS));
    expect(rowPieces).toBeGreaterThan(1);
    expect(html).toContain(`id="${pieceId(EXPORT_PART_IDS.rows, rowPieces - 1)}"`);
    for (const match of html.matchAll(/<script type="[^"]+" id="[^"]+"[^>]*>([^<]*)<\/script>/g)) expect(match[1]!.length).toBeLessThanOrEqual(PIECE_CHARS);
    // The first rows come before the viewer; everything else after it.
    expect(html.indexOf(`id="${EXPORT_PART_IDS.head}"`)).toBeLessThan(html.indexOf('<script data-detail-part-events="700">'));
    expect(html.indexOf('<script data-detail-part-events="700">')).toBeLessThan(html.indexOf(`id="${EXPORT_PART_IDS.rows}"`));

    const exported = await readExportedTimeline((id) => parts.get(id) ?? null, 700);
    const compact = compactTimeline(built, "any");
    expect(exported.partial).toBe(true);
    expect(withoutVersion(exported.first)).toEqual(withoutVersion(timelineTableOf(compactHead(compact, HEAD_EVENTS, "any"))));
    const whole = await exported.whole();
    expect(withoutVersion(whole)).toEqual(withoutVersion(timelineTableOf(compact)));
    // The same as the timeline as built, made into the viewer's columns without the compact form.
    expect(withoutVersion(whole)).toEqual(withoutVersion(timelineTableOfRows(built)));
    for (const index of [0, 699, 700, 1_401, built.events.length - 1]) {
      expect(await exported.loadDetail(whole.events.get(index)!)).toEqual(JSON.parse(JSON.stringify(built.events[index]!.detail)));
    }
    const query = "echo step 42";
    const matcher = timelineQueryMatcher(query)!;
    const expectedHits = built.events.filter((event) => matcher(searchTextOf(event))).map((event) => event.index);
    expect(expectedHits.length).toBeGreaterThan(0);
    expect(await exported.search(query)).toEqual(expectedHits);
  });

  it("a small timeline has no separate first part: its rows are the whole", async () => {
    const parts = partsOf(await buildExportHtml("", syntheticTimelineSource({ events: 300, sidechains: 0 })));
    expect(parts.has(EXPORT_PART_IDS.head)).toBe(false);
    const exported = await readExportedTimeline((id) => parts.get(id) ?? null, DETAIL_PART_EVENTS);
    expect(exported.partial).toBe(false);
    expect(await exported.whole()).toBe(exported.first);
  });

  it("a part missing from a damaged file is a clear error where it is needed, and the rest still reads", async () => {
    const large = syntheticTimelineSource({ events: 3_000, sidechains: 0 });
    const parts = partsOf(await buildExportHtml("", large, { detailPartEvents: 100 }));
    parts.delete(EXPORT_PART_IDS.details(1));
    const exported = await readExportedTimeline((id) => parts.get(id) ?? null, 100);
    await expect(exported.loadDetail(exported.first.events.get(150)!)).rejects.toThrow(/no part "timeline-details-1"/);
    await expect(exported.loadDetail(exported.first.events.get(250)!)).resolves.toBeTruthy();
    // Without its whole rows, the first ones still show; the whole and the search say why they cannot.
    parts.delete(EXPORT_PART_IDS.rows);
    const cut = await readExportedTimeline((id) => parts.get(id) ?? null, 100);
    expect(cut.first.events).toHaveLength(HEAD_EVENTS);
    await expect(cut.whole()).rejects.toThrow(/no part "timeline-data"/);
    await expect(cut.search("echo")).rejects.toThrow(/no part "timeline-data"/);
    await expect(readExportedTimeline(() => null, 100)).rejects.toThrow(/no part "timeline-data"/);
  });

  it("forbids every request with its CSP", async () => {
    const html = await buildExportHtml("", source);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${EXPORT_CSP}">`);
    expect(EXPORT_CSP).toBe("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:");
    expect(scriptSafeJson("a<b")).toBe('"a\\u003cb"');
  });

  it("writes the data as ASCII only (a one-byte string to decode) that reads back as it was", () => {
    const value = { text: "1201 in · 81 out … \u2028 \u2029 é 😀 \ud800 <!-- </script>", n: [1, null, 2.5] };
    const json = scriptSafeJson(value);
    expect(json).toMatch(/^[\x20-\x7e]*$/);
    expect(json).not.toContain("<");
    expect(JSON.parse(json)).toEqual(value);
  });
});
