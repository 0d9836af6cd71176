/**
 * 128-bit keys for line uuids, so that the index of a million transcript lines lives in one typed
 * array instead of a Map of a million strings. Canonical UUIDs map to their own 128 bits; any other
 * string is hashed with four independently seeded 32-bit lanes.
 *
 * Pass one only appends keys (a sequential write). Most lookups are for a line a few lines back
 * (a parent, the message a tombstone or checkpoint names) and are answered by a short backward
 * scan; a hash table over all keys is built only when a lookup reaches further.
 */
export const KEY_WORDS = 4;

export function writeIdKey(id: string, out: Uint32Array, at: number): void {
  if (id.length === 36 && parseCanonicalUuid(id, out, at)) return;
  let h0 = 0x811c9dc5;
  let h1 = 0x9e3779b9;
  let h2 = 0x85ebca6b;
  let h3 = 0xc2b2ae35 ^ id.length;
  for (let index = 0; index < id.length; index++) {
    const code = id.charCodeAt(index);
    h0 = Math.imul(h0 ^ code, 0x01000193);
    h1 = Math.imul(h1 ^ code, 0x5bd1e995);
    h2 = Math.imul(h2 ^ code, 0x27d4eb2d);
    h3 = Math.imul(h3 ^ code, 0x165667b1);
  }
  out[at] = finalMix(h0);
  out[at + 1] = finalMix(h1);
  out[at + 2] = finalMix(h2);
  out[at + 3] = finalMix(h3);
}

const DASH = 45;

/** `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (either case) into four words; false for anything else. */
function parseCanonicalUuid(id: string, out: Uint32Array, at: number): boolean {
  if (id.charCodeAt(8) !== DASH || id.charCodeAt(13) !== DASH || id.charCodeAt(18) !== DASH || id.charCodeAt(23) !== DASH) {
    return false;
  }
  let word = 0;
  let digits = 0;
  let wordIndex = 0;
  for (let index = 0; index < 36; index++) {
    if (index === 8 || index === 13 || index === 18 || index === 23) continue;
    const value = hexValue(id.charCodeAt(index));
    if (value < 0) return false;
    word = (word << 4) | value;
    if (++digits === 8) {
      out[at + wordIndex++] = word >>> 0;
      word = 0;
      digits = 0;
    }
  }
  return true;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

function finalMix(value: number): number {
  let hash = value;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** Mixes all four words: time-ordered UUIDs (v7) share their leading bits. */
function slotHash(keys: Uint32Array, at: number): number {
  return finalMix(keys[at]! ^ Math.imul(keys[at + 1]!, 0x9e3779b1) ^ Math.imul(keys[at + 2]!, 0x85ebca77) ^ keys[at + 3]!);
}

function sameKey(a: Uint32Array, atA: number, b: Uint32Array, atB: number): boolean {
  return a[atA] === b[atB] && a[atA + 1] === b[atB + 1] && a[atA + 2] === b[atB + 2] && a[atA + 3] === b[atB + 3];
}

/**
 * Open-addressing hash set over entries of a key array it does not own (load factor ≤ 1/2; slots
 * hold entry + 1 so zeroed memory is empty). `insert` keeps the first of equal keys.
 */
export class KeyTable {
  private slots: Int32Array;
  private count = 0;
  private readonly keys: () => Uint32Array;

  constructor(keys: () => Uint32Array, expectedSize: number) {
    this.keys = keys;
    this.slots = new Int32Array(nextPowerOfTwo(Math.max(16, Math.ceil(expectedSize) * 2)));
  }

  /** The entry already holding the same key, or -1 after adding `entry`. */
  insert(entry: number): number {
    const found = this.find(this.keys(), entry * KEY_WORDS);
    if (found >= 0) return found;
    if ((this.count + 1) * 2 > this.slots.length) this.grow();
    this.place(entry);
    this.count++;
    return -1;
  }

  /** The entry whose key equals `key[at..at+4]`, or -1. */
  find(key: Uint32Array, at: number): number {
    const keys = this.keys();
    const slots = this.slots;
    const mask = slots.length - 1;
    let slot = slotHash(key, at) & mask;
    for (;;) {
      const entry = slots[slot]! - 1;
      if (entry < 0) return -1;
      if (sameKey(keys, entry * KEY_WORDS, key, at)) return entry;
      slot = (slot + 1) & mask;
    }
  }

  private place(entry: number): void {
    const mask = this.slots.length - 1;
    let slot = slotHash(this.keys(), entry * KEY_WORDS) & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = entry + 1;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    for (const value of old) if (value !== 0) this.place(value - 1);
  }
}

/** The uuid keys of a transcript's indexed lines, in file order. */
export class NodeKeys {
  private keys: Uint32Array;
  private count = 0;
  private table: KeyTable | undefined;
  private readonly scratch = new Uint32Array(KEY_WORDS);

  /** `capacity` may overshoot: pages the keys never reach are never touched. */
  constructor(capacity: number) {
    this.keys = new Uint32Array(KEY_WORDS * Math.max(16, Math.ceil(capacity)));
  }

  get size(): number {
    return this.count;
  }

  append(id: string): number {
    if ((this.count + 1) * KEY_WORDS > this.keys.length) {
      const grown = new Uint32Array(this.keys.length * 2);
      grown.set(this.keys);
      this.keys = grown;
    }
    const node = this.count++;
    writeIdKey(id, this.keys, node * KEY_WORDS);
    this.table?.insert(node);
    return node;
  }

  /** Whether `node` was appended under this id. */
  matches(node: number, id: string): boolean {
    writeIdKey(id, this.scratch, 0);
    return node < this.count && sameKey(this.keys, node * KEY_WORDS, this.scratch, 0);
  }

  /** The first node with this id, by a linear scan: for a single lookup, cheaper than building the table. */
  scanFirst(id: string): number {
    writeIdKey(id, this.scratch, 0);
    for (let node = 0; node < this.count; node++) if (sameKey(this.keys, node * KEY_WORDS, this.scratch, 0)) return node;
    return -1;
  }

  /** A table over this array's keys for a subset of nodes inserted by the caller. */
  localTable(expectedSize: number): KeyTable {
    return new KeyTable(() => this.keys, expectedSize);
  }

  /** The newest node before `before` (and at most `limit` back) with this id, or -1. */
  findRecent(id: string, before: number, limit: number): number {
    writeIdKey(id, this.scratch, 0);
    const stop = Math.max(0, before - limit);
    for (let node = before - 1; node >= stop; node--) {
      if (sameKey(this.keys, node * KEY_WORDS, this.scratch, 0)) return node;
    }
    return -1;
  }

  /** The first node with this id anywhere, or -1. Builds the hash table on first use. */
  find(id: string): number {
    writeIdKey(id, this.scratch, 0);
    return this.ensureTable().find(this.scratch, 0);
  }

  private ensureTable(): KeyTable {
    if (this.table !== undefined) return this.table;
    const table = new KeyTable(() => this.keys, this.count);
    for (let node = 0; node < this.count; node++) table.insert(node);
    this.table = table;
    return table;
  }
}

function nextPowerOfTwo(value: number): number {
  let power = 1;
  while (power < value) power *= 2;
  return power;
}
