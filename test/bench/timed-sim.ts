import type { SimReply, SimRequest } from "./events-sim.bench-child.ts";
import { IpcChild } from "./ipc-child.ts";
import { percentile } from "./report.ts";

/** The id each scripted delta carries (16 characters with its padding): `S<round>D<number>------`. */
export const DELTA_ID = /S\d{3}D\d{5}/g;

/** One 16-character delta text whose id is unique over a bench run (`textChunkSize: 16` makes it one delta). */
export function deltaSegment(round: number, index: number): string {
  return `S${String(round % 1000).padStart(3, "0")}D${String(index).padStart(5, "0")}------`;
}

/** A delta id's number (`deltaSegment`'s index): the session times the deltas per session, plus the delta's place in it. */
export function deltaNumber(id: string): number {
  return Number(id.slice(5));
}

/**
 * The latency of each delta seen both leaving the simulator and at a tab (`perSession` deltas a session, ids numbered
 * session by session), and the same split by where the tail is: the first tenth of each session's deltas (while the
 * other sessions still start) or the rest.
 */
export function deltaLatencies(
  received: ReadonlyMap<string, number>,
  emitted: ReadonlyMap<string, number>,
  perSession: number,
): { latencies: number[]; early: number[]; rest: number[] } {
  const latencies: number[] = [];
  const early: number[] = [];
  const rest: number[] = [];
  for (const [id, at] of received) {
    const sent = emitted.get(id);
    if (sent === undefined) continue;
    latencies.push(at - sent);
    (deltaNumber(id) % perSession < perSession / 10 ? early : rest).push(at - sent);
  }
  return { latencies, early, rest };
}

/** A stretch of a round in which some deltas waited long: when (from the round's first delta leaving the simulator), how many, the longest wait. */
export type Stall = { fromMs: number; toMs: number; deltas: number; maxMs: number };

/**
 * Where a round's slow deltas are: the `windowMs` windows (by the time each delta left the simulator) holding a delta
 * slower than `overMs`, adjacent ones joined. A p99 set by a few stalls that every session shares (a burst of turns
 * starting or ending together, a pause of one process) reads differently from one spread over the whole round.
 */
export function latencyStalls(
  received: ReadonlyMap<string, number>,
  emitted: ReadonlyMap<string, number>,
  options: { windowMs: number; overMs: number },
): Stall[] {
  const slow: Array<[number, number]> = [];
  let first = Number.POSITIVE_INFINITY;
  for (const [id, at] of received) {
    const sent = emitted.get(id);
    if (sent === undefined) continue;
    first = Math.min(first, sent);
    if (at - sent > options.overMs) slow.push([sent, at - sent]);
  }
  const windows = new Map<number, { deltas: number; maxMs: number }>();
  for (const [sent, waited] of slow) {
    const index = Math.floor((sent - first) / options.windowMs);
    const window = windows.get(index) ?? { deltas: 0, maxMs: 0 };
    window.deltas++;
    window.maxMs = Math.max(window.maxMs, waited);
    windows.set(index, window);
  }
  const stalls: Stall[] = [];
  for (const index of [...windows.keys()].sort((left, right) => left - right)) {
    const window = windows.get(index)!;
    const last = stalls.at(-1);
    if (last && last.toMs === index * options.windowMs) {
      last.toMs += options.windowMs;
      last.deltas += window.deltas;
      last.maxMs = Math.max(last.maxMs, window.maxMs);
    } else stalls.push({ fromMs: index * options.windowMs, toMs: (index + 1) * options.windowMs, ...window });
  }
  return stalls;
}

/** CLOCK_MONOTONIC in milliseconds: one clock for every process on the machine. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * The model side of the latency benchmarks in a process of its own (events-sim.bench-child.ts), as a remote
 * model API has its own CPU: the model simulator, which timestamps each delta id as it hands it to its socket, on
 * CLOCK_MONOTONIC. Driven over IPC.
 */
export class TimedSim {
  private readonly child: IpcChild<SimRequest, SimReply>;
  readonly url: string;

  private constructor(child: IpcChild<SimRequest, SimReply>, url: string) {
    this.child = child;
    this.url = url;
  }

  static async start(): Promise<TimedSim> {
    const child = new IpcChild<SimRequest, SimReply>("events-sim.bench-child.ts", "the simulator process");
    const ready = await child.next();
    if (ready.kind !== "ready") throw new Error(`unexpected ${ready.kind}`);
    return new TimedSim(child, ready.url);
  }

  async setScenario(scenario: unknown): Promise<void> {
    await this.ask({ kind: "scenario", scenario });
  }

  /** When each delta id left the simulator since the last call. */
  async takeEmitted(): Promise<Map<string, number>> {
    const reply = await this.ask({ kind: "take" });
    return new Map(reply.kind === "emitted" ? reply.entries : []);
  }

  /** The process's id (for its CPU time). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  close(): Promise<void> {
    return this.child.close();
  }

  private ask(message: SimRequest): Promise<SimReply> {
    return this.child.ask(message);
  }
}

/**
 * How evenly the simulator paced each session's deltas (`perSession` deltas each, ids numbered session by session):
 * the gaps between consecutive deltas of a session, median and 99th percentile. A turn paced at 10 ms has gaps of a
 * little more (the pause starts after each write); a simulator short of CPU spaces them out, and offers less load.
 */
export function pacing(emitted: ReadonlyMap<string, number>, perSession: number): string {
  const times = new Map<number, number[]>();
  for (const [id, at] of emitted) {
    const session = Math.floor(deltaNumber(id) / perSession);
    let list = times.get(session);
    if (!list) times.set(session, (list = []));
    list.push(at);
  }
  const gaps: number[] = [];
  for (const list of times.values()) {
    list.sort((left, right) => left - right);
    for (let index = 1; index < list.length; index++) gaps.push(list[index]! - list[index - 1]!);
  }
  const at = (p: number) => (gaps.length === 0 ? Number.NaN : percentile(gaps, p)).toFixed(1);
  return `simulator pacing: gap between a session's deltas median ${at(50)} ms, p99 ${at(99)} ms`;
}
