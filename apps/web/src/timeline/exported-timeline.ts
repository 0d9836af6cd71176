import { TimelineSearchIndex, timelineTableOf, type CompactTimeline, type TimelineDetail, type TimelineRow, type TimelineTable } from "@cairn/core/timeline";
import { EXPORT_PART_IDS, readEmbeddedJson, yieldToPage, type EmbeddedData } from "./export-html";

/** One embedded part of an exported file by its id (the page's elements; a map in tests), or null when it has none. */
export type EmbeddedParts = (id: string) => EmbeddedData | null | Promise<EmbeddedData | null>;

/** What the viewer of an exported file works with: rows to draw at once, details and search unpacked when first asked. */
export type ExportedTimeline = {
  /** The first events of a large timeline (drawn while the rest is read), or the whole. */
  first: TimelineTable;
  /** Whether `first` is only the first events (the file has a separate first part). */
  partial: boolean;
  /** Reads the whole timeline, once (`first` itself when the file has no separate first part). */
  whole: () => Promise<TimelineTable>;
  loadDetail: (event: TimelineRow) => Promise<TimelineDetail>;
  /** The events matching `query`, once the whole timeline is read (indices into it). */
  search: (query: string) => Promise<number[]>;
};

/**
 * Reads the timeline `buildExportHtml` embedded: the first rows now, the whole when asked (User Timing `timeline-parse` for
 * unpacking the rows drawn first, `timeline-build` for making them), a part of the details when one of its events is
 * opened, and the search texts when the first search is typed. Each part is unpacked once.
 */
export async function readExportedTimeline(parts: EmbeddedParts, detailPartEvents: number): Promise<ExportedTimeline> {
  const read = async (id: string): Promise<unknown> => {
    const data = await parts(id);
    if (!data) throw new Error(`the file has no part "${id}": it is damaged or was cut short`);
    return readEmbeddedJson(data);
  };
  const rowsOf = async (id: string, measured: boolean) => {
    const started = performance.now();
    const compact = (await read(id)) as CompactTimeline;
    const parsed = performance.now();
    if (!measured) await yieldToPage();
    const rows = timelineTableOf(compact);
    if (measured) {
      performance.measure("timeline-parse", { start: started, end: parsed });
      performance.measure("timeline-build", { start: parsed, end: performance.now() });
    }
    return rows;
  };
  const head = await parts(EXPORT_PART_IDS.head);
  const first = await rowsOf(head ? EXPORT_PART_IDS.head : EXPORT_PART_IDS.rows, true);
  let wholeRows: Promise<TimelineTable> | undefined;
  const whole = () => {
    wholeRows ??= head ? rowsOf(EXPORT_PART_IDS.rows, false) : Promise.resolve(first);
    return wholeRows;
  };

  const details = new Map<number, Promise<TimelineDetail[]>>();
  let index: Promise<TimelineSearchIndex> | undefined;
  return {
    first,
    partial: head !== null,
    whole,
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
      const [searchIndex] = await Promise.all([index, whole()]);
      return searchIndex.search(query);
    },
  };
}
