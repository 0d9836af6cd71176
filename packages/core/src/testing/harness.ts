import { noCompaction } from "../compact/port.ts";
import type { QueryDeps } from "../loop/deps.ts";
import type { ModelClient } from "../model/port.ts";
import type { AgentEvent, AgentEventOf, AgentEventType, Terminal } from "../schema/events.ts";
import { createInitialAppState, type AppState } from "../state/app-state.ts";
import { createStore, type Store } from "../state/store.ts";
import type { ToolUseContext } from "../tools/tool.ts";
import { WorkspaceError, type Workspace } from "../workspace/port.ts";

/** Deterministic ids: `uuid-1`, `uuid-2`, … */
export function sequentialIds(prefix = "uuid"): () => string {
  let next = 0;
  return () => `${prefix}-${++next}`;
}

/** A clock that starts at a fixed instant and moves only when told to, or by `tick` per reading. */
export function fixedClock(start = Date.parse("2026-01-01T00:00:00.000Z"), tick = 0): { now: () => number; advance: (ms: number) => void } {
  let current = start;
  return {
    now: () => {
      const value = current;
      current += tick;
      return value;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export function testDeps(model: ModelClient, overrides: Partial<QueryDeps> = {}): QueryDeps {
  return {
    model,
    uuid: sequentialIds(),
    now: () => Date.now(),
    random: () => 0.5,
    sleep: async () => undefined,
    compactor: noCompaction,
    ...overrides,
  };
}

/** A workspace for tests whose tools never touch files: every call fails loudly. */
export const unusedWorkspace: Workspace = new Proxy({ root: "/workspace" } as Workspace, {
  get(target, property) {
    if (property === "root") return target.root;
    if (property === "then") return undefined;
    return () => {
      throw new WorkspaceError("io_error", `test workspace: ${String(property)} was not expected`);
    };
  },
});

export function testContext(
  options: { workspace?: Workspace; store?: Store<AppState>; sessionId?: string } = {},
): Omit<ToolUseContext, "signal" | "tools" | "messages"> & { store: Store<AppState> } {
  const store = options.store ?? createStore(createInitialAppState({ model: "test-model" }));
  const workspace = options.workspace ?? unusedWorkspace;
  return {
    store,
    sessionId: options.sessionId ?? "session-test",
    cwd: workspace.root,
    workspace,
    readFileState: new Map(),
    getAppState: store.getState,
    setAppState: store.setState,
    services: {},
  };
}

export async function collectEvents(generator: AsyncGenerator<AgentEvent, Terminal>): Promise<{ events: AgentEvent[]; terminal: Terminal }> {
  const events: AgentEvent[] = [];
  while (true) {
    const step = await generator.next();
    if (step.done) return { events, terminal: step.value };
    events.push(step.value);
  }
}

export function eventsOf<T extends AgentEventType>(events: readonly AgentEvent[], type: T): Array<AgentEventOf<T>> {
  return events.filter((event): event is AgentEventOf<T> => event.type === type);
}
