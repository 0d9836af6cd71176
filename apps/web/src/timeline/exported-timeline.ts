import {
  expandCompactTimeline,
  TimelineSearchIndex,
  type CompactTimeline,
  type TimelineDetail,
  type TimelineRow,
  type TimelineRows,
} from "@cairn/core/timeline";
import { EXPORT_PART_IDS, readEmbeddedJson, type EmbeddedData } from "./export-html";

/** One embedded part of an exported file by its id (the page's elements; a map in tests), or null when it has none. */
export type EmbeddedParts = (id: string) => EmbeddedData | null | Promise<EmbeddedData | null>;

/** What the viewer of an exported file works with: the rows at once, details and search unpacked when first asked. */
export type ExportedTimeline = {
  timeline: TimelineRows;
  loadDetail: (event: TimelineRow) => Promise<TimelineDetail>;
  search: (query: string) => Promise<number[]>;
};

/**
 * Reads the timeline `buildExportHtml` embedded: the rows now (User Timing `timeline-parse` for unpacking them,
 * `timeline-build` for making the rows), a part of the details when one of its events is opened, and the search
 * texts when the first search is typed. Each part is unpacked once.
 */
export async function readExportedTimeline(parts: EmbeddedParts, detailPartEvents: number): Promise<ExportedTimeline> {
  const read = async (id: string): Promise<unknown> => {
    const data = await parts(id);
    if (!data) throw new Error(`the file has no part "${id}": it is damaged or was cut short`);
    return readEmbeddedJson(data);
  };
  const started = performance.now();
  const compact = (await read(EXPORT_PART_IDS.rows)) as CompactTimeline;
  const parsed = performance.now();
  performance.measure("timeline-parse", { start: started, end: parsed });
  const timeline = expandCompactTimeline(compact);
  performance.measure("timeline-build", { start: parsed, end: performance.now() });

  const details = new Map<number, Promise<TimelineDetail[]>>();
  let index: Promise<TimelineSearchIndex> | undefined;
  return {
    timeline,
    async loadDetail(event) {
      const part = Math.floor(event.index / detailPartEvents);
      let loading = details.get(part);
      if (!loading) {
        loading = read(EXPORT_PART_IDS.details(part)) as Promise<TimelineDetail[]>;
        details.set(part, loading);
        // A part that could not be read is tried again the next time.
        loading.catch(() => details.delete(part));
      }
      const detail = (await loading)[event.index - part * detailPartEvents];
      if (!detail) throw new Error(`the file has no details for event ${event.index}`);
      return detail;
    },
    async search(query) {
      index ??= read(EXPORT_PART_IDS.search).then((texts) => {
        const built = new TimelineSearchIndex();
        for (const text of texts as string[]) built.add(text);
        return built;
      });
      index.catch(() => (index = undefined));
      return (await index).search(query);
    },
  };
}
