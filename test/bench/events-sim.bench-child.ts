// The events benchmark's model side, in a process of its own (as a remote model API has its own CPU): the
// model simulator, and a TCP tap in front of it that timestamps each delta id as its bytes leave the simulator.
// Timestamps are CLOCK_MONOTONIC (process.hrtime), which every process on the machine shares, so the
// benchmark compares them with the times its SSE readers receive the same ids.
// IPC: sends {kind:"ready", url}; answers {kind:"scenario"} with {kind:"ok"} and {kind:"take"} with
// {kind:"emitted", entries} (then forgets them).
import { startModelSim } from "@cairn/model-sim";
import { TcpTap } from "./tcp-tap.ts";
import { DELTA_ID, monotonicMs } from "./timed-sim.ts";

export type SimRequest = { kind: "scenario"; scenario: unknown } | { kind: "take" };
export type SimReply = { kind: "ready"; url: string } | { kind: "ok" } | { kind: "emitted"; entries: Array<[string, number]> };

async function main(): Promise<void> {
  const sim = await startModelSim({ scenario: { turns: [] }, textChunkSize: 16 });
  let emitted = new Map<string, number>();
  const tap = await TcpTap.start(
    sim.url,
    () => {
      let tail = "";
      return {
        fromServer(chunk, atMs) {
          const text = tail + chunk.toString("latin1");
          for (const id of text.match(DELTA_ID) ?? []) if (!emitted.has(id)) emitted.set(id, atMs);
          tail = text.slice(-16);
        },
      };
    },
    monotonicMs,
  );
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
  send({ kind: "ready", url: tap.url });
}

await main();
