import { setFlagsFromString } from "node:v8";

/**
 * Turns off V8's allocation-site pretenuring for this process: a node in distributed mode serves many sessions at
 * once, and V8 must not decide from a burst that their short-lived objects are long-lived.
 *
 * V8 counts, at each young-generation collection, how many of the objects made at each allocation site (an object or
 * array literal in the code) survived it; a site above 85 % while the young generation is at its largest is switched,
 * for good, to allocating its objects straight in the old generation (and the code built on the old decision is
 * deoptimised). A node's start is exactly such a burst: its warm-up and the first turns of many sessions starting
 * together keep a young generation's worth of streaming objects in flight at once. A node here had about 150 sites
 * switched by the end of its first round of 100 sessions (`--trace-pretenuring`); from then on each delta's objects
 * went to the old generation and died there, filling it with garbage until a full mark-compact, which landed about a
 * second into the first round, a stall every session streaming through the node shared (docs/scaling.md). Without
 * pretenuring those objects die young, as they are, in the cheap collections.
 *
 * Set at the start of `cairn serve` in distributed mode, before any decision is made (V8 reads the flag at each
 * collection). Setting a V8 flag changes the tag of Node's code cache, so the built-in modules loaded after this
 * compile from source once; none are on the streaming path.
 */
export function turnOffPretenuring(): void {
  setFlagsFromString("--no-allocation-site-pretenuring");
}
