import { randomUUID } from "node:crypto";
import {
  BackgroundAgents,
  createInitialAppState,
  taskNotificationText,
  createStore,
  dispatchNotification,
  dispatchSessionEnd,
  grantSkillTools,
  productionDeps,
  renderSkillPrompt,
  renderSlashPrompt,
  repairForResume,
  revokeSkillTools,
  runPrompt,
  slashCommandList,
  type AgentEvent,
  type AppState,
  type HookNotification,
  type PermissionRequest,
  type QueryDeps,
  type ReadFileState,
  type SkillCatalog,
  type SkillDefinition,
  type Store,
} from "@cairn/core";
import type { ConversationMessage, PermissionMode } from "@cairn/core/schema";
import type { Runtime, SessionContext, SessionWiring } from "../runtime/create-runtime.ts";
import { ApiError } from "../router/errors.ts";
import { createSessionTelemetry, type SessionTelemetry } from "../telemetry/session-telemetry.ts";
import type { CompactResult, MemoryView, SessionEvent, SessionSnapshot, SessionStateEvent } from "../router/types.ts";
import type { EventBus } from "./event-bus.ts";
import { checkpointingGate } from "./checkpointing-gate.ts";
import { PermissionBroker } from "./permission-broker.ts";
import { manualCompaction } from "./session-compaction.ts";
import { contextTokensOf, lastContextTokens, sameState, shorten, subagentPermissionEvent, titleOf } from "./session-derive.ts";

export const DEFAULT_MAX_QUEUED_PROMPTS = 10;

export type LiveSessionOptions = {
  sessionId: string;
  runtime: Runtime;
  bus: EventBus;
  /** The conversation already on disk (empty for a new session). */
  history?: ConversationMessage[];
  title?: string;
  updatedAt?: string;
  model?: string;
  permissionMode?: PermissionMode;
  maxQueuedPrompts?: number;
  /**
   * Takes the file checkpoint for a prompt (`message` is its user message). Called once per prompt,
   * just before the first tool call that may change something, so chat-only prompts cost nothing.
   */
  checkpoint?: (session: LiveSession, message: ConversationMessage, signal: AbortSignal) => Promise<void>;
  deps?: (runtime: Runtime) => QueryDeps;
};

type ActiveRun = { controller: AbortController; done: Promise<void> };
/** A prompt as typed, or a slash-invoked skill (expanded, and its `allowed-tools` granted, when it starts). */
type PendingPrompt = { text: string; skill?: { definition: SkillDefinition; args: string } };

/**
 * One session held by the hub: its conversation, its own app state (mode, model, todos, session
 * rules) and permission engine, at most one running prompt plus a FIFO of queued ones, and the
 * permission questions waiting for a tab. Every event goes to the bus; the transcript (written by
 * runPrompt through the session's sink) is the durable record.
 */
export class LiveSession {
  readonly sessionId: string;
  readonly store: Store<AppState>;
  readonly broker = new PermissionBroker();
  title: string;
  updatedAt: string;
  contextTokens: number | null = null;
  /** While a response streams: the seq just before its `message-start`. */
  private streamingFromSeq: number | null = null;
  private readonly history: ConversationMessage[];
  private readonly runtime: Runtime;
  private readonly bus: EventBus;
  private readonly gate: ReturnType<Runtime["createGate"]>;
  private readonly readFileState: ReadFileState = new Map();
  private readonly queue: PendingPrompt[] = [];
  private readonly maxQueued: number;
  private readonly options: LiveSessionOptions;
  private wiring: SessionWiring | undefined;
  private context: Promise<SessionContext> | undefined;
  private active: ActiveRun | undefined;
  private lastState: SessionStateEvent | undefined;
  private readonly unsubscribeStore: () => void;
  /** Agents started with `run_in_background`; they outlive the prompt that started them. */
  private readonly backgroundAgents = new BackgroundAgents();
  /** SessionStart ran (with this session's first prompt here): SessionEnd runs when it closes. */
  private started = false;
  private telemetry: SessionTelemetry | undefined;
  /** Cancels hooks run outside a prompt (Notification, SessionEnd) when the session closes. */
  private readonly hooksController = new AbortController();

  constructor(options: LiveSessionOptions) {
    this.options = options;
    this.sessionId = options.sessionId;
    this.runtime = options.runtime;
    this.bus = options.bus;
    this.history = [...(options.history ?? [])];
    this.title = options.title ?? titleOf(this.history) ?? "New session";
    this.updatedAt = options.updatedAt ?? new Date().toISOString();
    this.maxQueued = options.maxQueuedPrompts ?? DEFAULT_MAX_QUEUED_PROMPTS;
    const base = this.runtime.store.getState();
    this.store = createStore(
      createInitialAppState({
        model: options.model ?? base.model,
        permissionMode: options.permissionMode ?? base.permissionMode,
      }),
    );
    this.gate = this.runtime.createGate(this.store);
    this.contextTokens = lastContextTokens(this.history);
    this.unsubscribeStore = this.store.subscribe(() => this.publishStateIfChanged());
    // A background agent that finishes while the session is idle wakes it: its result becomes the next turn.
    this.backgroundAgents.onFinished(() => this.deliverBackgroundResults());
  }

  get running(): boolean {
    return this.active !== undefined;
  }

  get messageCount(): number {
    return this.history.length;
  }

  messages(): ConversationMessage[] {
    return [...this.history];
  }

  pendingPermissions(): PermissionRequest[] {
    return this.broker.pending();
  }

  state(): SessionStateEvent {
    const app = this.store.getState();
    return {
      type: "session-state",
      running: this.running,
      permissionMode: app.permissionMode,
      model: app.model,
      todos: app.todos.map((todo) => ({ ...todo })),
      contextTokens: this.contextTokens,
      queued: this.queue.length,
    };
  }

  snapshot(): SessionSnapshot {
    const state = this.state();
    const contextWindow = this.sessionWiring().compactor.contextUsage({ messages: [], model: state.model, systemPrompt: [] }).contextWindow;
    return {
      sessionId: this.sessionId,
      title: this.title,
      messages: this.messages(),
      running: state.running,
      permissionMode: state.permissionMode,
      model: state.model,
      todos: state.todos,
      contextTokens: state.contextTokens,
      contextWindow,
      pendingPermissions: this.pendingPermissions(),
      lastSeq: this.bus.lastSeq(this.sessionId),
      streamingFromSeq: this.streamingFromSeq,
      queued: state.queued,
    };
  }

  /** What a subscriber too far behind the bus gets instead of the events it missed. */
  backfill(): SessionEvent[] {
    return [...this.history.map((message): SessionEvent => ({ type: "message", message })), this.state()];
  }

  /** Starts the prompt now, or queues it behind the running one. */
  send(prompt: string): { queued: boolean; position: number } {
    return this.enqueue({ text: prompt });
  }

  /** `/<skill> [args]`: the skill's text becomes the prompt; its `allowed-tools` hold while that prompt runs. */
  sendSkill(skill: SkillDefinition, args: string): { queued: boolean; position: number } {
    return this.enqueue({ text: `/${skill.name}${args ? ` ${args}` : ""}`, skill: { definition: skill, args } });
  }

  /** The conversation's system prompt and memory, made when first needed (the git snapshot is taken then). */
  sessionContext(): Promise<SessionContext> {
    this.context ??= this.runtime.sessionContext(this.store.getState().model);
    return this.context;
  }

  async skills(): Promise<SkillCatalog> {
    return (await this.sessionContext()).memory.skills();
  }

  /** What the IDE shows: memory files and their sizes, notices, skills, invalid skill files, slash commands. */
  async memoryView(): Promise<MemoryView> {
    const overview = await (await this.sessionContext()).memory.overview();
    return { ...overview, commands: slashCommandList(overview) };
  }

  private enqueue(prompt: PendingPrompt): { queued: boolean; position: number } {
    if (!this.active) {
      this.start(prompt);
      return { queued: false, position: 0 };
    }
    if (this.queue.length >= this.maxQueued) {
      throw new ApiError("queue_full", `${this.queue.length} prompts are already waiting; interrupt or wait for the run to end`);
    }
    this.queue.push(prompt);
    this.publishStateIfChanged();
    return { queued: true, position: this.queue.length };
  }

  /** Aborts the running prompt and drops the queued ones. */
  interrupt(): boolean {
    const dropped = this.queue.splice(0).length;
    if (!this.active) {
      if (dropped > 0) this.publishStateIfChanged();
      return dropped > 0;
    }
    this.active.controller.abort(new Error("Interrupted by the user"));
    return true;
  }

  /** Resolves when no prompt runs (queued ones included). */
  async idle(): Promise<void> {
    while (this.active) await this.active.done;
  }

  setMode(mode: PermissionMode): void {
    this.store.setState((state) => (state.permissionMode === mode ? state : { ...state, permissionMode: mode }));
  }

  setModel(model: string): void {
    this.store.setState((state) => (state.model === model ? state : { ...state, model }));
  }

  async close(): Promise<void> {
    this.interrupt();
    await this.idle();
    this.unsubscribeStore();
    this.broker.clear();
    if (this.started && this.wiring) {
      const ended = await dispatchSessionEnd(this.wiring.hooks, "other", { signal: this.hooksController.signal, now: Date.now }).catch(() => undefined);
      for (const event of ended?.events ?? []) await this.record(event);
    }
    this.hooksController.abort();
    await this.wiring?.sink.close();
  }

  /**
   * Tells the user's `Notification` hooks that the session wants attention (a permission prompt is
   * waiting, the session is idle, or anything else another part of Cairn wants to say). Their runs
   * go to the transcript and the bus, like any hook's.
   */
  async notify(notification: HookNotification): Promise<void> {
    const hooks = this.sessionWiring().hooks;
    const notified = await dispatchNotification(hooks, notification, { signal: this.hooksController.signal, now: Date.now }).catch(() => undefined);
    for (const event of notified?.events ?? []) await this.record(event);
  }

  /** Keeps an event that happened outside a prompt run: hook runs in the transcript, every event on the bus. */
  private async record(event: AgentEvent): Promise<void> {
    if (event.type === "hook-runs") await this.wiring?.sink.appendHookRuns(event.event, event.runs).catch(() => undefined);
    this.bus.publish(this.sessionId, event);
  }

  /** Makes the transcript on disk complete (for fork and rewind). */
  async flush(): Promise<void> {
    await this.wiring?.sink.flush();
  }

  /**
   * Tells the agent about something the user did outside the conversation (a revert in the Changes
   * panel): a meta user message, in the transcript and in the model's next request, not shown as the
   * user's words. Refused while a prompt runs, so it never lands in the middle of a turn.
   */
  async recordNote(text: string): Promise<void> {
    if (this.active) throw new ApiError("session_busy", "Wait for the agent to finish (or interrupt it) first");
    const message: ConversationMessage = {
      type: "user",
      uuid: randomUUID(),
      timestamp: new Date().toISOString(),
      parentUuid: this.history.at(-1)?.uuid ?? null,
      isMeta: true,
      message: { role: "user", content: `<system-reminder>${text}</system-reminder>` },
    };
    await this.sessionWiring().sink.appendMessage(message);
    await this.sessionWiring().sink.flush();
    this.observe({ type: "message", message });
    this.bus.publish(this.sessionId, { type: "message", message });
  }

  get transcriptPath(): string {
    return this.sessionWiring().transcriptPath;
  }

  sessionWiring(): SessionWiring {
    this.wiring ??= this.runtime.session(this.sessionId, this.store);
    return this.wiring;
  }

  /**
   * `/compact [instructions]`: summarises the conversation now, as Claude Code does. Runs as the
   * session's task (interruptible, shown as running); refused while a prompt runs.
   */
  async compact(instructions: string | undefined): Promise<CompactResult> {
    if (this.active) throw new ApiError("session_busy", "Wait for the running prompt to end (or interrupt it) before compacting");
    let outcome: CompactResult | ApiError = new ApiError("compaction_failed", "The compaction did not run");
    await this.begin(async (signal) => {
      outcome = await this.runCompaction(instructions, signal);
    });
    if (outcome instanceof ApiError) throw outcome;
    return outcome;
  }

  /** Results of background agents that finished while no prompt ran: they start the next turn. */
  private deliverBackgroundResults(): void {
    if (this.active || !this.backgroundAgents.hasPending()) return;
    this.start({ text: this.backgroundAgents.takeNotifications().map(taskNotificationText).join("\n\n") });
  }

  private start(prompt: PendingPrompt): void {
    if (this.title === "New session") this.title = shorten(prompt.text);
    void this.begin((signal) => this.run(prompt, signal));
  }

  /** Runs `task` as the session's one active run; queued prompts follow it. */
  private begin(task: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const controller = new AbortController();
    const run: ActiveRun = { controller, done: Promise.resolve() };
    this.active = run;
    this.publishStateIfChanged();
    run.done = task(controller.signal).finally(() => {
      this.active = undefined;
      const next = this.queue.shift();
      if (next !== undefined) return this.start(next);
      if (this.backgroundAgents.hasPending()) return this.deliverBackgroundResults();
      this.publishStateIfChanged();
      if (!controller.signal.aborted) void this.notify({ notificationType: "idle_prompt", message: "Cairn is waiting for your input" });
    });
    return run.done;
  }

  private async runCompaction(instructions: string | undefined, signal: AbortSignal): Promise<CompactResult | ApiError> {
    const wiring = this.sessionWiring();
    const steps = manualCompaction({
      compactor: wiring.compactor,
      sink: wiring.sink,
      messages: repairForResume(this.history),
      model: this.store.getState().model,
      systemPrompt: this.runtime.systemPrompt,
      client: this.runtime.model.client,
      lastInputTokens: this.contextTokens,
      instructions,
      signal,
      readFileState: this.readFileState,
    });
    while (true) {
      const step = await steps.next();
      if (step.done) {
        if (!(step.value instanceof ApiError)) this.contextTokens = step.value.postTokens;
        return step.value;
      }
      this.observe(step.value);
      this.bus.publish(this.sessionId, step.value);
    }
  }

  private async run(pending: PendingPrompt, signal: AbortSignal): Promise<void> {
    const runtime = this.runtime;
    const wiring = this.sessionWiring();
    const { systemPrompt, memory } = await this.sessionContext();
    let prompt = pending.text;
    if (pending.skill) {
      const { definition, args } = pending.skill;
      const body = await memory.skillBody(definition);
      if (body === null) {
        this.bus.publish(this.sessionId, {
          type: "error",
          code: "skill_unreadable",
          message: `/${definition.name}: could not read ${definition.path}`,
          status: null,
        });
        return;
      }
      prompt = renderSlashPrompt(definition, args, renderSkillPrompt(definition, body, args));
      grantSkillTools(definition, { getAppState: this.store.getState, setAppState: this.store.setState }, memory.grants);
    }
    const app = this.store.getState();
    const history = repairForResume(this.history);
    const deps: QueryDeps = { ...(this.options.deps ? this.options.deps(runtime) : productionDeps(runtime.model.client)), compactor: wiring.compactor };
    let promptMessage: ConversationMessage | undefined;
    let checkpointed: Promise<void> | undefined;
    const takeCheckpoint = (): Promise<void> => {
      const checkpoint = this.options.checkpoint;
      if (!checkpoint || !promptMessage) return Promise.resolve();
      checkpointed ??= checkpoint(this, promptMessage, signal).catch((error: unknown) => {
        this.bus.publish(this.sessionId, {
          type: "notice",
          level: "warning",
          code: "checkpoint_failed",
          message: `No file checkpoint for this prompt: ${(error as Error).message}`,
        });
      });
      return checkpointed;
    };
    const gate = checkpointingGate(this.gate, takeCheckpoint);
    try {
      const sessionStart = this.started ? undefined : history.length > 0 ? ("resume" as const) : ("startup" as const);
      this.started = true;
      if (runtime.telemetry && !this.telemetry) {
        this.telemetry = createSessionTelemetry(runtime.telemetry, { sessionId: this.sessionId });
        this.telemetry.started();
      }
      const turnTelemetry = this.telemetry?.turn(prompt);
      const events = runPrompt({
        history,
        prompt,
        sink: wiring.sink,
        ...(sessionStart ? { sessionStart } : {}),
        systemPrompt,
        memory,
        tools: runtime.toolsFor(history),
        model: app.model,
        ...(runtime.planModel ? { planModel: runtime.planModel } : {}),
        ...(runtime.fallbackModel ? { fallbackModel: runtime.fallbackModel } : {}),
        signal,
        context: {
          sessionId: this.sessionId,
          cwd: runtime.workspaceRoot,
          workspace: runtime.workspace,
          readFileState: this.readFileState,
          getAppState: this.store.getState,
          setAppState: this.store.setState,
          // Subagents (the Agent tool) ask through this session's gate and prompter, so their questions reach the tabs too.
          services: runtime.sessionServices({ gate, prompter: this.broker, hooks: wiring.hooks, deps, backgroundAgents: this.backgroundAgents, memory }),
        },
        gate,
        prompter: this.broker,
        hooks: wiring.hooks,
        deps,
        config: runtime.queryConfig,
      });
      for await (const event of events) {
        // runPrompt yields the prompt's own message first.
        if (!promptMessage && event.type === "message" && event.message.type === "user") promptMessage = event.message;
        turnTelemetry?.observe(event);
        this.observe(event);
        const seq = this.bus.publish(this.sessionId, event);
        // A subagent's permission questions come nested in the Agent tool's progress; lift them out so
        // every tab handles them like the session's own (the answer goes to the same broker).
        const nested = subagentPermissionEvent(event);
        if (nested) {
          this.observe(nested);
          this.bus.publish(this.sessionId, nested);
        }
        if (event.type === "message-start") this.streamingFromSeq = seq - 1;
        else if ((event.type === "message" && event.message.type === "assistant") || event.type === "tombstone" || event.type === "result")
          this.streamingFromSeq = null;
      }
    } catch (error) {
      this.bus.publish(this.sessionId, { type: "error", code: "internal_error", message: (error as Error).message, status: null });
    } finally {
      // A skill's allowed-tools hold while the prompt that used it runs.
      revokeSkillTools(memory.releaseGrants(), this.store.setState);
      this.streamingFromSeq = null;
      await wiring.sink.flush().catch(() => undefined);
    }
  }

  /** Keeps the conversation and the live numbers in step with the events. */
  private observe(event: AgentEvent): void {
    switch (event.type) {
      case "message": {
        this.history.push(event.message);
        this.updatedAt = event.message.timestamp;
        if (event.message.type === "assistant") {
          const tokens = contextTokensOf(event.message);
          if (tokens !== null) {
            this.contextTokens = tokens;
            this.publishStateIfChanged();
          }
        }
        return;
      }
      case "tombstone": {
        const index = event.uuid === undefined ? -1 : this.history.findIndex((message) => message.uuid === event.uuid);
        if (index >= 0) this.history.splice(index, 1);
        return;
      }
      case "permission-request":
        void this.notify({ notificationType: "permission_prompt", message: `Cairn needs your permission to use ${event.toolName}` });
        this.broker.announce({
          requestId: event.requestId,
          toolUseId: event.toolUseId,
          toolName: event.toolName,
          input: event.input,
          reason: event.reason,
          suggestions: event.suggestions,
          ...(event.message !== undefined ? { message: event.message } : {}),
        });
        return;
      case "permission-resolved":
        this.broker.settle(event.requestId);
        return;
      default:
        return;
    }
  }

  private publishStateIfChanged(): void {
    const next = this.state();
    if (this.lastState && sameState(this.lastState, next)) return;
    this.lastState = next;
    this.bus.publish(this.sessionId, next);
  }
}
