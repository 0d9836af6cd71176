import {
  BackgroundAgents,
  createInitialAppState,
  taskNotificationText,
  createStore,
  repairForResume,
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
import type { CompactResult, MemoryView, SessionEvent, SessionSnapshot, SessionStateEvent } from "../router/types.ts";
import type { EventBus } from "./event-bus.ts";
import { PermissionBroker } from "./permission-broker.ts";
import { runManualCompaction } from "./session-compaction.ts";
import { contextTokensOf, lastContextTokens, metaNote, permissionRequestOf, sameState, shorten, titleOf } from "./session-derive.ts";
import { SessionHooks } from "./session-hooks.ts";
import { runSessionPrompt, type PendingPrompt, type SessionRunState } from "./session-prompt-run.ts";

export const DEFAULT_MAX_QUEUED_PROMPTS = 10;
/** Ends of a run that an error caused (the others ended normally or were interrupted). */
const RUN_ERROR_REASONS: ReadonlySet<string> = new Set(["model_error", "prompt_too_long", "blocking_limit"]);

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
  /** `clear`: the session was started by `/clear`, which its first prompt's SessionStart hooks are told. */
  startSource?: "clear";
  maxQueuedPrompts?: number;
  /**
   * Takes the file checkpoint for a prompt (`message` is its user message). Called once per prompt,
   * just before the first tool call that may change something, so chat-only prompts cost nothing.
   */
  checkpoint?: (session: LiveSession, message: ConversationMessage, signal: AbortSignal) => Promise<void>;
  deps?: (runtime: Runtime) => QueryDeps;
};

type ActiveRun = { controller: AbortController; done: Promise<void> };

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
  /** The error that ended the current run, if one did (the Notification hook says so). */
  private stoppedBy: string | undefined;
  private lastState: SessionStateEvent | undefined;
  private readonly unsubscribeStore: () => void;
  /** Agents started with `run_in_background`; they outlive the prompt that started them. */
  private readonly backgroundAgents = new BackgroundAgents();
  /** SessionStart ran (with this session's first prompt here): SessionEnd runs when it closes. */
  private readonly runState: SessionRunState;
  private readonly hooks: SessionHooks;

  constructor(options: LiveSessionOptions) {
    this.options = options;
    this.sessionId = options.sessionId;
    this.runtime = options.runtime;
    this.bus = options.bus;
    this.history = [...(options.history ?? [])];
    this.title = options.title ?? titleOf(this.history) ?? "New session";
    this.updatedAt = options.updatedAt ?? new Date().toISOString();
    this.maxQueued = options.maxQueuedPrompts ?? DEFAULT_MAX_QUEUED_PROMPTS;
    this.runState = { started: false, telemetry: undefined, ...(options.startSource ? { startSource: options.startSource } : {}) };
    const base = this.runtime.store.getState();
    this.store = createStore(
      createInitialAppState({
        model: options.model ?? base.model,
        permissionMode: options.permissionMode ?? base.permissionMode,
      }),
    );
    this.gate = this.runtime.createGate(this.store);
    this.hooks = new SessionHooks({
      sessionId: this.sessionId,
      bus: this.bus,
      wiring: () => this.sessionWiring(),
      existingWiring: () => this.wiring,
    });
    this.contextTokens = lastContextTokens(this.history);
    this.unsubscribeStore = this.store.subscribe(() => this.publishStateIfChanged());
    // A background agent that finishes while the session is idle wakes it: its result becomes the next turn.
    this.backgroundAgents.onFinished(() => this.deliverBackgroundResults());
    this.backgroundAgents.onChange(() => this.publishStateIfChanged());
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
      backgroundAgents: this.backgroundAgents.views(),
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
      backgroundAgents: state.backgroundAgents,
    };
  }

  /** What a subscriber too far behind the bus gets instead of the events it missed. */
  backfill(): SessionEvent[] {
    return [
      ...this.history.map((message): SessionEvent => ({ type: "message", message })),
      ...this.pendingPermissions().map((request): SessionEvent => ({ type: "permission-request", ...request })),
      this.state(),
    ];
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

  /** `/clear` left this session for a new one: its SessionEnd hooks run now (reason `clear`), once. */
  async endForClear(): Promise<void> {
    if (!this.runState.started) return;
    this.runState.started = false;
    await this.hooks.sessionEnd("clear");
  }

  async close(): Promise<void> {
    this.interrupt();
    await this.idle();
    this.unsubscribeStore();
    this.broker.clear();
    if (this.runState.started) await this.hooks.sessionEnd();
    this.hooks.abort();
    await this.wiring?.sink.close();
    // The memory files' watch ends with the session.
    await this.context?.then((context) => context.memory.close()).catch(() => undefined);
  }

  /**
   * Tells the user's `Notification` hooks that the session wants attention (a permission prompt is
   * waiting, the session is idle, or anything else another part of Cairn wants to say).
   */
  notify(notification: HookNotification): Promise<void> {
    return this.hooks.notify(notification);
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
    await this.record([metaNote(text, this.history.at(-1)?.uuid ?? null)]);
  }

  /** Appends messages made outside a run (a note, the close of a turn another node left unfinished), durably, and shows them. */
  async record(messages: readonly ConversationMessage[]): Promise<void> {
    const sink = this.sessionWiring().sink;
    for (const message of messages) await sink.appendMessage(message);
    await sink.flush();
    for (const message of messages) {
      this.observe({ type: "message", message });
      this.bus.publish(this.sessionId, { type: "message", message });
    }
    this.publishStateIfChanged();
  }

  /** The checkpoints recorded in this session's transcript, in order (undefined when nothing is written yet). */
  async transcriptCheckpoints(): Promise<ReadonlyArray<{ commit: string; messageUuid: string }> | undefined> {
    return (await this.runtime.transcripts.load(this.sessionId, { scope: "all" }))?.checkpoints;
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
    this.stoppedBy = undefined;
    run.done = task(controller.signal).finally(() => {
      this.active = undefined;
      const next = this.queue.shift();
      if (next !== undefined) return this.start(next);
      if (this.backgroundAgents.hasPending()) return this.deliverBackgroundResults();
      this.publishStateIfChanged();
      // Claude Code's contract has no error type: a run an error stopped is an idle prompt that says so.
      const message = this.stoppedBy ? `Cairn stopped on an error: ${this.stoppedBy}` : "Cairn is waiting for your input";
      if (!controller.signal.aborted) void this.notify({ notificationType: "idle_prompt", message });
    });
    return run.done;
  }

  private async runCompaction(instructions: string | undefined, signal: AbortSignal): Promise<CompactResult | ApiError> {
    const wiring = this.sessionWiring();
    const input = {
      compactor: wiring.compactor,
      sink: wiring.sink,
      messages: repairForResume(this.history),
      model: this.store.getState().model,
      hooks: wiring.hooks,
    };
    const outcome = await runManualCompaction(
      { ...input, systemPrompt: this.runtime.systemPrompt, client: this.runtime.model.client, lastInputTokens: this.contextTokens },
      { instructions, signal, readFileState: this.readFileState },
      (event) => {
        this.observe(event);
        this.bus.publish(this.sessionId, event);
      },
    );
    if (!(outcome instanceof ApiError)) this.contextTokens = outcome.postTokens;
    return outcome;
  }

  private run(pending: PendingPrompt, signal: AbortSignal): Promise<void> {
    const checkpoint = this.options.checkpoint;
    return runSessionPrompt(
      {
        sessionId: this.sessionId,
        runtime: this.runtime,
        bus: this.bus,
        store: this.store,
        gate: this.gate,
        broker: this.broker,
        backgroundAgents: this.backgroundAgents,
        readFileState: this.readFileState,
        history: this.history,
        runState: this.runState,
        wiring: this.sessionWiring(),
        context: () => this.sessionContext(),
        deps: this.options.deps,
        checkpoint: checkpoint ? (message, runSignal) => checkpoint(this, message, runSignal) : undefined,
        observe: (event) => this.observe(event),
        setStreamingFromSeq: (seq) => {
          this.streamingFromSeq = seq;
        },
      },
      pending,
      signal,
    );
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
      case "result":
        if (RUN_ERROR_REASONS.has(event.terminal.reason)) this.stoppedBy = event.terminal.error?.message ?? event.terminal.reason;
        return;
      case "permission-request":
        void this.notify({ notificationType: "permission_prompt", message: `Cairn needs your permission to use ${event.toolName}` });
        this.broker.announce(permissionRequestOf(event));
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
