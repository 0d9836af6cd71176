import type { SequencedEvent } from "../../router/context.ts";

/**
 * A session's last events by seq, in a ring of fixed size (slot `seq % size`): what a node holds for fast replays
 * and to know an entry it reads back. An event never replaces a newer one in its slot (entries read from the
 * stream after a gap may be older than what the node holds); one at the same seq replaces it.
 */
export class RecentEvents {
  private readonly slots: Array<SequencedEvent | undefined>;

  constructor(size: number) {
    this.slots = new Array(size);
  }

  get(seq: number): SequencedEvent | undefined {
    const item = this.slots[seq % this.slots.length];
    return item?.seq === seq ? item : undefined;
  }

  has(seq: number): boolean {
    return this.get(seq) !== undefined;
  }

  set(item: SequencedEvent): void {
    const slot = item.seq % this.slots.length;
    const held = this.slots[slot];
    if (held === undefined || held.seq <= item.seq) this.slots[slot] = item;
  }

  /** Every event after `afterSeq` through `lastSeq`, in order, when all of them are held; else null. */
  after(afterSeq: number, lastSeq: number): SequencedEvent[] | null {
    const events: SequencedEvent[] = [];
    for (let seq = afterSeq + 1; seq <= lastSeq; seq++) {
      const item = this.get(seq);
      if (!item) return null;
      events.push(item);
    }
    return events.length > 0 ? events : null;
  }

  /** Forgets the events at `seq` and after. */
  dropFrom(seq: number): void {
    for (let slot = 0; slot < this.slots.length; slot++) if ((this.slots[slot]?.seq ?? -1) >= seq) this.slots[slot] = undefined;
  }
}
