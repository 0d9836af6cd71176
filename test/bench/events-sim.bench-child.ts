// The events benchmark's model side, in a process of its own (as a remote model API has its own CPU): the
// model simulator, which timestamps each delta id as it hands the bytes to its socket (no proxy in between: a tap
// process forwarding every delta cost the shared 2 cores about a sixth of a core at 100 sessions, and its own
// scheduling delay counted as Cairn's latency).
// Timestamps are CLOCK_MONOTONIC (process.hrtime), which every process on the machine shares, so the
// benchmark compares them with the times its SSE readers receive the same ids.
// IPC: sends {kind:"ready", url}; answers {kind:"scenario"} with {kind:"ok"} and {kind:"take"} with
// {kind:"emitted", entries} (then forgets them).
import { startModelSim } from "@cairn/model-sim";
import { DELTA_ID, monotonicMs } from "./timed-sim.ts";

export type SimRequest = { kind: "scenario"; scenario: unknown } | { kind: "take" };
export type SimReply = { kind: "ready"; url: string } | { kind: "ok" } | { kind: "emitted"; entries: Array<[string, number]> };

async function main(): Promise<void> {
  let emitted = new Map<string, number>();
  // Stamped as the simulator hands each piece of an answer to its socket: the deltas leave this process there (an event
  // per piece when the turn paces them, whole events when it does not, so a delta id is never split between pieces).
  const sim = await startModelSim({
    scenario: { turns: [] },
    textChunkSize: 16,
    onStreamWrite(chunk) {
      const atMs = monotonicMs();
      for (const id of chunk.match(DELTA_ID) ?? []) if (!emitted.has(id)) emitted.set(id, atMs);
    },
  });
  const send = (reply: SimReply) => process.send!(reply);
  process.on("message", (request: SimRequest) => {
    if (request.kind === "scenario") {
      sim.setScenario(request.scenario as Parameters<typeof sim.setScenario>[0]);
      send({ kind: "ok" });
    } else {
      send({ kind: "emitted", entries: [...emitted] });
      emitted = new Map();
    }
  });
  // The benchmark going away (its IPC channel closing) ends this process.
  process.on("disconnect", () => process.exit(0));
  send({ kind: "ready", url: sim.url });
}

await main();
