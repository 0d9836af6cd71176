import { timelineQueryMatcher } from "./search.ts";

/** Characters per joined chunk: far below V8's largest string, large enough that a query is a few `indexOf` scans. */
const DEFAULT_CHUNK_CHARS = 8 * 1024 * 1024;
/** Between two events' texts, so no match spans two events (a query holding it matches nothing). */
const SEPARATOR = "\u0000";

type Chunk = { first: number; text: string; starts: Uint32Array };

/**
 * The search texts of a timeline's events, lower-cased and joined into a few large strings with each event's
 * offset: a query is one `indexOf` scan per chunk instead of a regular expression per event, and the texts cost
 * a few large strings instead of one per event. Events are added in order; `search` answers what was added.
 */
export class TimelineSearchIndex {
  private readonly chunkChars: number;
  private readonly chunks: Chunk[] = [];
  private pending: string[] = [];
  private pendingStarts: number[] = [];
  private pendingChars = 0;
  private count = 0;

  constructor(options: { chunkChars?: number } = {}) {
    this.chunkChars = options.chunkChars ?? DEFAULT_CHUNK_CHARS;
  }

  /** How many events were added. */
  get size(): number {
    return this.count;
  }

  /** Adds the next event's search text. */
  add(searchText: string): void {
    const lower = searchText.toLowerCase().replaceAll(SEPARATOR, " ");
    this.pendingStarts.push(this.pendingChars);
    this.pending.push(lower);
    this.pendingChars += lower.length + SEPARATOR.length;
    this.count++;
    if (this.pendingChars >= this.chunkChars) this.seal();
  }

  /**
   * The indices of the events whose text contains `query` (trimmed; case-insensitive, literal), in order; every
   * event for a blank query.
   */
  search(query: string): number[] {
    this.seal();
    if (timelineQueryMatcher(query) === null) return Array.from({ length: this.count }, (_, index) => index);
    const needle = query.trim().toLowerCase();
    const found: number[] = [];
    if (needle.includes(SEPARATOR)) return found;
    for (const { first, text, starts } of this.chunks) {
      let from = 0;
      for (;;) {
        const at = text.indexOf(needle, from);
        if (at === -1) break;
        const event = lastAtOrBefore(starts, at);
        found.push(first + event);
        // One hit per event: go on from the next event's text.
        if (event + 1 >= starts.length) break;
        from = starts[event + 1]!;
      }
    }
    return found;
  }

  private seal(): void {
    if (this.pending.length === 0) return;
    const text = `${this.pending.join(SEPARATOR)}${SEPARATOR}`;
    this.chunks.push({ first: this.count - this.pending.length, text, starts: Uint32Array.from(this.pendingStarts) });
    this.pending = [];
    this.pendingStarts = [];
    this.pendingChars = 0;
  }
}

/** The position of the last value in ascending `starts` that is at most `offset`. */
function lastAtOrBefore(starts: Uint32Array, offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}
