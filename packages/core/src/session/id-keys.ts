/**
 * 128-bit keys for line ids (uuids, message ids), so that an index of a million transcript lines
 * lives in typed arrays instead of a Map of a million strings. Canonical UUIDs map to their own
 * 128 bits; any other string is hashed with four independently seeded 32-bit lanes.
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

/**
 * An insertion-ordered set of 128-bit keys: `add` returns the entry's index (its insertion order)
 * and whether it was new. Open addressing over typed arrays, load factor ≤ 1/2. Slots hold
 * index + 1, so a fresh (zeroed, not yet touched) array is already empty.
 */
export class IdKeyTable {
  private keys: Uint32Array;
  private slots: Int32Array;
  private count = 0;
  private readonly scratch = new Uint32Array(KEY_WORDS);

  /** `expectedSize` may overshoot: key pages the table never reaches are never touched. */
  constructor(expectedSize = 1024) {
    const capacity = Math.max(16, Math.ceil(expectedSize));
    this.keys = new Uint32Array(KEY_WORDS * capacity);
    this.slots = new Int32Array(nextPowerOfTwo(Math.min(capacity, 1 << 16) * 2));
  }

  get size(): number {
    return this.count;
  }

  /** The new entry's index, or `-1 - index` of the equal key already present. */
  insert(id: string): number {
    const scratch = this.scratch;
    writeIdKey(id, scratch, 0);
    const found = this.findScratch();
    if (found >= 0) return -1 - found;
    if ((this.count + 1) * 2 > this.slots.length) this.growSlots();
    if ((this.count + 1) * KEY_WORDS > this.keys.length) {
      const grown = new Uint32Array(this.keys.length * 2);
      grown.set(this.keys);
      this.keys = grown;
    }
    const index = this.count++;
    const base = index * KEY_WORDS;
    this.keys[base] = scratch[0]!;
    this.keys[base + 1] = scratch[1]!;
    this.keys[base + 2] = scratch[2]!;
    this.keys[base + 3] = scratch[3]!;
    this.insertSlot(index);
    return index;
  }

  get(id: string): number {
    writeIdKey(id, this.scratch, 0);
    return this.findScratch();
  }

  private findScratch(): number {
    const { keys, slots, scratch } = this;
    const mask = slots.length - 1;
    const k0 = scratch[0]!;
    const k1 = scratch[1]!;
    const k2 = scratch[2]!;
    const k3 = scratch[3]!;
    let slot = slotHash(scratch, 0) & mask;
    for (;;) {
      const entry = slots[slot]! - 1;
      if (entry < 0) return -1;
      const base = entry * KEY_WORDS;
      if (keys[base] === k0 && keys[base + 1] === k1 && keys[base + 2] === k2 && keys[base + 3] === k3) return entry;
      slot = (slot + 1) & mask;
    }
  }

  private insertSlot(index: number): void {
    const mask = this.slots.length - 1;
    let slot = slotHash(this.keys, index * KEY_WORDS) & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = index + 1;
  }

  private growSlots(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let index = 0; index < this.count; index++) this.insertSlot(index);
  }
}

function nextPowerOfTwo(value: number): number {
  let power = 1;
  while (power < value) power *= 2;
  return power;
}
