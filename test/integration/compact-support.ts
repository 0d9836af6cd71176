import {
  createAnthropicModelClient,
  createCompactor,
  defaultRetryPolicy,
  readTool,
  runPrompt,
  type AgentEvent,
  type CairnCompactor,
  type CompactorOptions,
  type ConversationMessage,
  type QueryConfig,
  type Terminal,
  type TranscriptSink,
} from "@cairn/core";
import { createMemoryWorkspace, testContext } from "@cairn/core/testing";
import { startModelSim, type ModelSim, type Scenario } from "@cairn/model-sim";

export type SimBody = {
  system: Array<{ text: string }>;
  messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }>;
  tools?: unknown[];
};

/** Files of about 8,000 characters: one Read result is about 2,200 tokens. */
export function workspaceFiles(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let file = 1; file <= count; file++) {
    const lines = Array.from({ length: 100 }, (_, line) => `export const value_${file}_${line} = "${"x".repeat(46)}"; // f${file}`);
    files[`/workspace/src/f${file}.ts`] = `${lines.join("\n")}\n`;
  }
  return files;
}

export const readTurn = (file: number) => ({
  content: [{ type: "tool_use" as const, id: `toolu_read_${file}`, name: "Read", input: { file_path: `/workspace/src/f${file}.ts` } }],
});
export const textTurn = (text: string) => ({ content: [{ type: "text" as const, text }] });
export const summaryTurn = textTurn(
  "<analysis>Reviewed the reads.</analysis>\n<summary>1. Primary request: read the source files f1 to f4 and report.\n8. Current work: reading the files one by one.</summary>",
);
export const serverError = { kind: "http" as const, status: 500, message: "simulated outage" };

/** Window 9,000, reserve 700, buffer 500: auto-compaction at 7,800 tokens, i.e. after about three and a half file reads. */
export const smallWindow = { contextWindow: 9_000, reservedOutputTokens: 700, bufferTokens: 500 } as const;
/** Two attempts per model call, no waiting between them. */
export const quickRetry = { ...defaultRetryPolicy, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 };

class MemorySink implements TranscriptSink {
  readonly sessionId = "session-compact";
  readonly lines: ConversationMessage[] = [];
  async appendMessage(message: ConversationMessage): Promise<void> {
    this.lines.push(message);
  }
  async appendTombstone(): Promise<void> {}
  async appendHookRuns(): Promise<void> {}
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

export type CompactionRun = {
  sim: ModelSim;
  events: AgentEvent[];
  terminal: Terminal;
  /** The lines the transcript received, in order. */
  written: ConversationMessage[];
  /** Request bodies in order, split into the loop's requests (with tools) and summary requests (without). */
  bodies: SimBody[];
  mainBodies: SimBody[];
  summaryBodies: SimBody[];
  compactor: CairnCompactor;
  store: ReturnType<typeof testContext>["store"];
};

/** One prompt end to end: runPrompt → query() over the real SDK and HTTP against model-sim, with Cairn's compactor. */
export async function runWithCompactor(options: {
  scenario: Scenario;
  files: number;
  compactor: Omit<CompactorOptions, "getAppState" | "setAppState">;
  config?: Partial<QueryConfig>;
}): Promise<CompactionRun> {
  const sim = await startModelSim({ scenario: options.scenario });
  const workspace = createMemoryWorkspace(workspaceFiles(options.files));
  const context = testContext({ workspace });
  const compactor = createCompactor({
    ...options.compactor,
    getAppState: context.store.getState,
    setAppState: context.store.setState,
    readFile: async (path, signal) => new TextDecoder().decode(await workspace.readFile(path, { signal })),
    sleep: async () => undefined,
  });
  const sink = new MemorySink();
  const events: AgentEvent[] = [];
  const run = runPrompt({
    history: [],
    prompt: "Read src/f1.ts to src/f4.ts one by one, then report.",
    sink,
    systemPrompt: ["You are Cairn, a coding agent.", "Working directory: /workspace"],
    tools: [readTool],
    model: "claude-test",
    signal: new AbortController().signal,
    context,
    deps: {
      model: createAnthropicModelClient({ apiKey: "test", baseURL: sim.url }),
      uuid: () => crypto.randomUUID(),
      now: () => Date.now(),
      random: () => 0,
      sleep: async () => undefined,
      compactor,
    },
    config: { promptCaching: "never", ...options.config },
  });
  let terminal: Terminal;
  while (true) {
    const step = await run.next();
    if (step.done) {
      terminal = step.value.terminal;
      break;
    }
    events.push(step.value);
  }
  const bodies = sim.requests.filter((request) => request.path === "/v1/messages").map((request) => request.body as SimBody);
  return {
    sim,
    events,
    terminal,
    written: sink.lines,
    bodies,
    mainBodies: bodies.filter((body) => body.tools !== undefined),
    summaryBodies: bodies.filter((body) => body.tools === undefined),
    compactor,
    store: context.store,
  };
}

export const sizeOf = (body: SimBody | undefined): number => JSON.stringify(body?.messages ?? []).length;
