import { createAnthropicModelClient, type ModelClient } from "@cairn/core";
import { startDemoModel } from "@cairn/model-sim/demo";

export const DEFAULT_MODEL = "claude-sonnet-5-5";
export const DEMO_MODEL = "cairn-demo";

export type ModelSource = {
  client: ModelClient;
  model: string;
  /** True when no API key is set and the built-in offline demo model answers. */
  demo: boolean;
  baseURL: string | null;
  close(): Promise<void>;
};

/**
 * The real API when a key or base URL is given; otherwise the offline demo model, started in-process
 * on a random loopback port and spoken to through the same SDK client, so the whole path is real. The demo model is
 * the simulator's demo mode (`@cairn/model-sim/demo`, a runtime dependency on purpose: one implementation of the
 * Messages wire format, shared with the tests).
 */
export async function resolveModelSource(options: {
  apiKey: string | undefined;
  baseURL: string | undefined;
  model: string | undefined;
}): Promise<ModelSource> {
  if (options.apiKey || options.baseURL) {
    return {
      client: createAnthropicModelClient({ apiKey: options.apiKey ?? "cairn-no-key", baseURL: options.baseURL ?? null }),
      model: options.model ?? DEFAULT_MODEL,
      demo: false,
      baseURL: options.baseURL ?? null,
      close: async () => undefined,
    };
  }
  const sim = await startDemoModel();
  return {
    client: createAnthropicModelClient({ apiKey: "cairn-demo", baseURL: sim.url }),
    model: options.model ?? DEMO_MODEL,
    demo: true,
    baseURL: sim.url,
    close: () => sim.close(),
  };
}
