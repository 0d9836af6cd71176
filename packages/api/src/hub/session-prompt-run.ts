import {
  grantSkillTools,
  useSkillModel,
  productionDeps,
  renderSkillPrompt,
  renderSlashPrompt,
  repairForResume,
  resumeTurn,
  revokeSkillTools,
  runPrompt,
  type AgentEvent,
  type PermissionRequest,
  type AppState,
  type BackgroundAgents,
  type QueryDeps,
  type ReadFileState,
  type SkillDefinition,
  type Store,
} from "@cairn/core";
import type { ConversationMessage } from "@cairn/core/schema";
import type { Runtime, SessionContext, SessionWiring } from "../runtime/runtime-types.ts";
import { createSessionTelemetry, type SessionTelemetry } from "../telemetry/session-telemetry.ts";
import type { EventBus } from "./event-bus.ts";
import { checkpointingGate } from "./checkpointing-gate.ts";
import type { PermissionBroker } from "./permission-broker.ts";
import { subagentPermissionEvent } from "./session-derive.ts";

/** A prompt as typed, or a slash-invoked skill (expanded, and its `allowed-tools` granted, when it starts). */
export type PendingPrompt = { text: string; skill?: { definition: SkillDefinition; args: string } };
/**
 * The turn a dead owner left unfinished, carried on here (see core's `resumeTurn`): the permission
 * questions it was waiting on are asked again under their ids (already announced to the broker).
 */
export type ResumedTurn = { resume: PermissionRequest[] };
export type PendingRun = PendingPrompt | ResumedTurn;

/** What outlives one prompt: SessionStart ran (so SessionEnd runs on close), and the session's telemetry. */
export type SessionRunState = { started: boolean; telemetry: SessionTelemetry | undefined; startSource?: "clear" };

/** The parts of a live session one prompt run reads and feeds. */
export type PromptRunHost = {
  sessionId: string;
  runtime: Runtime;
  bus: EventBus;
  store: Store<AppState>;
  gate: ReturnType<Runtime["createGate"]>;
  broker: PermissionBroker;
  backgroundAgents: BackgroundAgents;
  readFileState: ReadFileState;
  /** The conversation so far (before this prompt). */
  history: readonly ConversationMessage[];
  runState: SessionRunState;
  wiring: SessionWiring;
  context: () => Promise<SessionContext>;
  deps: ((runtime: Runtime) => QueryDeps) | undefined;
  /** Takes the prompt's file checkpoint (see `LiveSessionOptions.checkpoint`). */
  checkpoint: ((message: ConversationMessage, signal: AbortSignal) => Promise<void>) | undefined;
  /** Applies an event to the session's conversation and live numbers. */
  observe: (event: AgentEvent) => void;
  /** While a response streams: the seq just before its `message-start`; null otherwise. */
  setStreamingFromSeq: (seq: number | null) => void;
};

/**
 * Runs one prompt of a live session: expands a slash-invoked skill, wires the checkpointing gate,
 * SessionStart and telemetry, and passes every event of `runPrompt` to the session and the bus.
 */
export async function runSessionPrompt(host: PromptRunHost, pending: PendingRun, signal: AbortSignal): Promise<void> {
  const { runtime, wiring, bus, sessionId, store } = host;
  const { systemPrompt, memory } = await host.context();
  const resumed = "resume" in pending ? pending.resume : undefined;
  let prompt = "text" in pending ? pending.text : "";
  if ("skill" in pending && pending.skill) {
    const { definition, args } = pending.skill;
    const body = await memory.skillBody(definition);
    if (body === null) {
      bus.publish(sessionId, {
        type: "error",
        code: "skill_unreadable",
        message: `/${definition.name}: could not read ${definition.path}`,
        status: null,
      });
      return;
    }
    prompt = renderSlashPrompt(definition, args, renderSkillPrompt(definition, body, args));
    grantSkillTools(definition, { getAppState: store.getState, setAppState: store.setState }, memory.grants);
    useSkillModel(definition, { getAppState: store.getState, setAppState: store.setState });
  }
  const app = store.getState();
  // A resumed turn starts from the transcript as it is (its calls without results are what it resumes).
  const history = resumed ? [...host.history] : repairForResume(host.history);
  const deps: QueryDeps = { ...(host.deps ? host.deps(runtime) : productionDeps(runtime.modelClient(host.sessionId))), compactor: wiring.compactor };
  let promptMessage: ConversationMessage | undefined;
  let checkpointed: Promise<void> | undefined;
  const takeCheckpoint = (): Promise<void> => {
    const checkpoint = host.checkpoint;
    if (!checkpoint || !promptMessage) return Promise.resolve();
    checkpointed ??= checkpoint(promptMessage, signal).catch((error: unknown) => {
      bus.publish(sessionId, {
        type: "notice",
        level: "warning",
        code: "checkpoint_failed",
        message: `No file checkpoint for this prompt: ${(error as Error).message}`,
      });
    });
    return checkpointed;
  };
  const gate = checkpointingGate(host.gate, takeCheckpoint);
  try {
    const sessionStart = host.runState.started ? undefined : history.length > 0 ? ("resume" as const) : (host.runState.startSource ?? ("startup" as const));
    if (!resumed) host.runState.started = true;
    if (runtime.telemetry && !host.runState.telemetry) {
      host.runState.telemetry = createSessionTelemetry(runtime.telemetry, { sessionId });
      host.runState.telemetry.started();
    }
    const turnTelemetry = resumed ? undefined : host.runState.telemetry?.turn(prompt);
    const run = {
      sink: wiring.sink,
      systemPrompt,
      memory,
      tools: runtime.toolsFor(history),
      model: app.model,
      ...(runtime.planModel ? { planModel: runtime.planModel } : {}),
      ...(runtime.fallbackModel ? { fallbackModel: runtime.fallbackModel } : {}),
      ...(runtime.settings.merged.context.tokenBudget ? { tokenBudget: runtime.settings.merged.context.tokenBudget } : {}),
      signal,
      context: {
        sessionId,
        cwd: runtime.workspaceRoot,
        workspace: runtime.workspace,
        readFileState: host.readFileState,
        getAppState: store.getState,
        setAppState: store.setState,
        // Subagents (the Agent tool) ask through this session's gate and prompter, so their questions reach the tabs too.
        services: runtime.sessionServices({
          gate,
          prompter: host.broker,
          hooks: wiring.hooks,
          deps,
          backgroundAgents: host.backgroundAgents,
          memory,
          sessionId,
        }),
      },
      gate,
      prompter: host.broker,
      hooks: wiring.hooks,
      deps,
      config: runtime.queryConfig,
    };
    const events = resumed
      ? resumeTurn({ ...run, history, rerun: resumed.map((request) => ({ toolUseId: request.toolUseId, requestId: request.requestId })) })
      : runPrompt({ ...run, history, prompt, ...(sessionStart ? { sessionStart } : {}) });
    for await (const event of events) {
      // runPrompt yields the prompt's own message first (a resumed turn has none: its prompt ran elsewhere).
      if (!resumed && !promptMessage && event.type === "message" && event.message.type === "user") promptMessage = event.message;
      turnTelemetry?.observe(event);
      host.observe(event);
      const seq = bus.publish(sessionId, event);
      // A subagent's permission questions come nested in the Agent tool's progress; lift them out so
      // every tab handles them like the session's own (the answer goes to the same broker).
      const nested = subagentPermissionEvent(event);
      if (nested) {
        host.observe(nested);
        bus.publish(sessionId, nested);
      }
      if (resumed && event.type === "tool-end") withdrawUnasked(host, resumed, event.record.toolUseId);
      if (event.type === "message-start") host.setStreamingFromSeq(seq - 1);
      else if ((event.type === "message" && event.message.type === "assistant") || event.type === "tombstone" || event.type === "result")
        host.setStreamingFromSeq(null);
    }
  } catch (error) {
    bus.publish(sessionId, { type: "error", code: "internal_error", message: (error as Error).message, status: null });
  } finally {
    for (const request of resumed ?? []) withdrawUnasked(host, resumed ?? [], request.toolUseId);
    // A skill's allowed-tools hold while the prompt that used it runs.
    revokeSkillTools(memory.releaseGrants(), store.setState);
    host.setStreamingFromSeq(null);
    await wiring.sink.flush().catch(() => undefined);
  }
}

/**
 * A question carried over from the previous owner that was not asked again (a rule or mode now
 * decides the call, a hook answered it, or the run ended first) is withdrawn: the tabs stop showing it.
 */
function withdrawUnasked(host: PromptRunHost, carried: readonly PermissionRequest[], toolUseId: string): void {
  const request = carried.find((candidate) => candidate.toolUseId === toolUseId);
  if (!request || !host.broker.pending().some((pending) => pending.requestId === request.requestId)) return;
  host.broker.settle(request.requestId);
  host.bus.publish(host.sessionId, { type: "permission-resolved", requestId: request.requestId, behavior: "deny" });
}
