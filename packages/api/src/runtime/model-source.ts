import { createAnthropicModelClient, type ModelClient } from "@cairn/core";

export const DEFAULT_MODEL = "claude-sonnet-5-5";
export const DEMO_MODEL = "cairn-demo";

export type ModelSource = {
  client: ModelClient;
  /** Another client to the same endpoint that sends its requests through `fetch` (the prompt dump). */
  clientWithFetch(fetch: typeof globalThis.fetch): ModelClient;
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
 * Messages wire format, shared with the tests), imported only when it is used.
 */
export async function resolveModelSource(options: {
  apiKey: string | undefined;
  baseURL: string | undefined;
  model: string | undefined;
  /** The `fetch` the clients send through (default: Node's). */
  fetch?: typeof globalThis.fetch | undefined;
}): Promise<ModelSource> {
  const baseFetch = options.fetch ? { fetch: options.fetch } : {};
  if (options.apiKey || options.baseURL) {
    const clientOptions = { apiKey: options.apiKey ?? "cairn-no-key", baseURL: options.baseURL ?? null, ...baseFetch };
    return {
      client: createAnthropicModelClient(clientOptions),
      clientWithFetch: (fetch) => createAnthropicModelClient({ ...clientOptions, fetch }),
      model: options.model ?? DEFAULT_MODEL,
      demo: false,
      baseURL: options.baseURL ?? null,
      close: async () => undefined,
    };
  }
  const { startDemoModel } = await import("@cairn/model-sim/demo");
  const sim = await startDemoModel();
  const demoOptions = { apiKey: "cairn-demo", baseURL: sim.url, ...baseFetch };
  return {
    client: createAnthropicModelClient(demoOptions),
    clientWithFetch: (fetch) => createAnthropicModelClient({ ...demoOptions, fetch }),
    model: options.model ?? DEMO_MODEL,
    demo: true,
    baseURL: sim.url,
    close: () => sim.close(),
  };
}
