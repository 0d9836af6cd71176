// Stream throughput: the same 20,000-delta response consumed raw through the SDK and through query().
import Anthropic from "@anthropic-ai/sdk";
import { createAnthropicModelClient, noCompaction, query } from "@cairn/core";
import { testContext } from "@cairn/core/testing";
import { median, report } from "./report.ts";
import { startSimProcess } from "./sim-process.ts";

const DELTAS = 20_000;
const RUNS = 15;
const WARMUP = 3;
let lastEventCount = 0;

export default async function run(): Promise<void> {
  const text = "abcd".repeat(DELTAS); // 4 characters per delta
  const turn = { content: [{ type: "text" as const, text }] };
  // The simulator runs in its own process, as a real API would: its CPU time is not the client's.
  const sim = await startSimProcess({ textChunkSize: 4 });
  try {
    const raw: number[] = [];
    const loop: number[] = [];
    const rawCpu: number[] = [];
    const loopCpu: number[] = [];
    // Interleaved, after warm-up rounds that let the JIT settle on both paths; medians resist a busy machine.
    for (let round = 0; round < WARMUP + RUNS; round++) {
      await sim.setScenario({ turns: [turn] });
      let cpu = process.cpuUsage();
      const rawMs = await rawSdk(sim.url);
      const rawCpuMs = cpuMs(cpu);
      await sim.setScenario({ turns: [turn] });
      cpu = process.cpuUsage();
      const loopMs = await throughQuery(sim.url);
      const loopCpuMs = cpuMs(cpu);
      if (round < WARMUP) continue;
      raw.push(rawMs);
      loop.push(loopMs);
      rawCpu.push(rawCpuMs);
      loopCpu.push(loopCpuMs);
    }
    const rawRate = DELTAS / (median(raw) / 1000);
    const loopRate = DELTAS / (median(loop) / 1000);
    report("stream.raw_sdk_ms", median(raw), "ms");
    report("stream.query_ms", median(loop), "ms");
    report("stream.raw_sdk_deltas_per_s", rawRate, "deltas/s");
    report("stream.query_deltas_per_s", loopRate, "deltas/s");
    report("stream.query_vs_raw", (loopRate / rawRate) * 100, "%");
    report("stream.query_delta_events", lastEventCount, "events");
    // CPU time of this (client) process: what the loop costs, independent of other load on the machine.
    report("stream.raw_sdk_cpu_ms", median(rawCpu), "ms");
    report("stream.query_cpu_ms", median(loopCpu), "ms");
    report("stream.query_cpu_vs_raw", (median(loopCpu) / median(rawCpu)) * 100, "%");
  } finally {
    await sim.close();
  }
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

async function rawSdk(baseURL: string): Promise<number> {
  const client = new Anthropic({ apiKey: "bench", baseURL, maxRetries: 0 });
  const started = performance.now();
  const stream = await client.messages.create({ model: "bench", max_tokens: 100_000, stream: true, messages: [{ role: "user", content: "go" }] });
  let deltas = 0;
  for await (const event of stream) if (event.type === "content_block_delta") deltas++;
  if (deltas !== DELTAS) throw new Error(`raw SDK saw ${deltas} deltas`);
  return performance.now() - started;
}

async function throughQuery(baseURL: string): Promise<number> {
  const started = performance.now();
  const events: unknown[] = [];
  const generator = query({
    messages: [{ type: "user", uuid: "p", parentUuid: null, timestamp: new Date().toISOString(), message: { role: "user", content: "go" } }],
    systemPrompt: ["bench"],
    tools: [],
    model: "bench",
    signal: new AbortController().signal,
    context: testContext(),
    deps: {
      model: createAnthropicModelClient({ apiKey: "bench", baseURL }),
      uuid: () => crypto.randomUUID(),
      now: Date.now,
      random: Math.random,
      sleep: async () => undefined,
      compactor: noCompaction,
    },
    config: { maxOutputTokens: 100_000 },
  });
  for await (const event of generator) events.push(event);
  // Deltas that arrive faster than they are consumed are merged, so count characters, not events.
  const streamed = events.reduce<number>(
    (sum, event) => sum + ((event as { type: string; text?: string }).type === "text-delta" ? (event as { text: string }).text.length : 0),
    0,
  );
  if (streamed !== DELTAS * 4) throw new Error(`query() streamed ${streamed} characters, expected ${DELTAS * 4}`);
  lastEventCount = events.filter((event) => (event as { type: string }).type === "text-delta").length;
  return performance.now() - started;
}
