/**
 * A column of strings kept as a few long strings (chunks) and where each value ends in its chunk: a million titles
 * are a few objects for the garbage collector instead of a million. Values are written (`push`) into a pending list
 * joined into a chunk (`seal`: after each batch written, when one of them is read, or when it grows long); a value
 * read is a slice of its chunk.
 */
export class TextColumn {
  private chunks: string[] = [];
  /** The index of the first value of each chunk. */
  private chunkFirst: number[] = [];
  /** Where value i ends in its chunk (UTF-16 units); it starts where value i - 1 ends, or at 0 for a chunk's first. */
  private ends = new Int32Array(16);
  private pending: string[] = [];
  private pendingLength = 0;
  length = 0;

  /** Room for `more` values after those written. */
  reserve(more: number): void {
    if (this.length + more <= this.ends.length) return;
    const wider = new Int32Array(Math.max(this.ends.length * 2, this.length + more));
    wider.set(this.ends);
    this.ends = wider;
  }

  push(value: string): void {
    if (this.length === this.ends.length) this.reserve(1);
    if (this.pending.length === 0) {
      this.chunkFirst.push(this.length);
      this.pendingLength = 0;
    } else if (this.pendingLength + value.length > CHUNK_CHARS || this.pending.length >= CHUNK_VALUES) {
      this.seal();
      this.chunkFirst.push(this.length);
      this.pendingLength = 0;
    }
    this.pending.push(value);
    this.pendingLength += value.length;
    this.ends[this.length++] = this.pendingLength;
  }

  get(index: number): string {
    if (!(index >= 0 && index < this.length)) return "";
    const chunk = this.chunkOf(index);
    const first = this.chunkFirst[chunk]!;
    const text = chunk === this.chunks.length ? this.sealed(chunk) : this.chunks[chunk]!;
    return text.slice(index === first ? 0 : this.ends[index - 1]!, this.ends[index]!);
  }

  /** The first index below `limit` whose value is `value`, or -1. */
  indexOf(value: string, limit: number): number {
    this.seal();
    for (let chunk = 0; chunk < this.chunks.length; chunk++) {
      const text = this.chunks[chunk]!;
      const first = this.chunkFirst[chunk]!;
      const last = Math.min(limit, chunk + 1 < this.chunkFirst.length ? this.chunkFirst[chunk + 1]! : this.length);
      for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) {
        // A value that starts at `at` is the one whose predecessor ends there.
        const index = at === 0 ? first : upperBound(this.ends, at, first, last);
        if (index >= last) break;
        const start = index === first ? 0 : this.ends[index - 1]!;
        if (start === at && this.ends[index]! - start === value.length) return index;
      }
    }
    return -1;
  }

  /** The first `count` values of `other` (this column is empty). */
  copyFrom(other: TextColumn, count: number): void {
    other.seal();
    this.ends = new Int32Array(Math.max(16, count * 2));
    this.ends.set(other.ends.subarray(0, count));
    for (let chunk = 0; chunk < other.chunks.length && other.chunkFirst[chunk]! < count; chunk++) {
      const first = other.chunkFirst[chunk]!;
      const next = chunk + 1 < other.chunkFirst.length ? other.chunkFirst[chunk + 1]! : other.length;
      this.chunkFirst.push(first);
      this.chunks.push(next <= count ? other.chunks[chunk]! : other.chunks[chunk]!.slice(0, other.ends[count - 1]!));
    }
    this.length = count;
  }

  private chunkOf(index: number): number {
    return upperBound(this.chunkFirst, index, 0, this.chunkFirst.length) - 1;
  }

  /** The pending values as the last chunk (a reader asked for one of them). */
  private sealed(chunk: number): string {
    this.seal();
    return this.chunks[chunk]!;
  }

  /** The values written since the last chunk as one (the next value written starts another). */
  seal(): void {
    if (this.pending.length === 0) return;
    this.chunks.push(this.pending.join(""));
    this.pending = [];
  }
}

/** A chunk is cut at this many values or characters, whichever comes first (V8's strings end near 2^29). */
const CHUNK_VALUES = 65_536;
const CHUNK_CHARS = 1 << 24;

/** The first position in `[low, high)` whose value is above `value` (the values ascend). */
function upperBound(values: ArrayLike<number>, value: number, low: number, high: number): number {
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}
