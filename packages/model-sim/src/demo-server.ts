import { startModelSim } from "./model-sim.ts";

export type DemoModel = {
  /** Base URL for the SDK's `baseURL`. */
  url: string;
  close(): Promise<void>;
};

/**
 * Cairn's offline demo model, as it runs inside `cairn` when no API key is set: the simulator in demo mode on a free
 * loopback port, spoken to through the real SDK like any model. Without the test instruments: it keeps no request
 * log and has no `/_sim/*` routes, so a long session grows no memory here and no other local process can read it back.
 */
export async function startDemoModel(): Promise<DemoModel> {
  const sim = await startModelSim({ mode: "demo", host: "127.0.0.1", port: 0, instruments: false });
  return { url: sim.url, close: () => sim.close() };
}
