import {
  BackgroundAgents,
  createInitialAppState,
  taskNotificationText,
  createStore,
  repairForResume,
  type AgentEvent,
  type AppState,
  type HookNotification,
  type PermissionRequest,
  type ReadFileState,
  type SkillDefinition,
  type Store,
} from "@cairn/core";
import type { ConversationMessage, PermissionMode } from "@cairn/core/schema";
import type { Runtime, SessionWiring } from "../runtime/runtime-types.ts";
import { SessionContextCache } from "./session-context-cache.ts";
import type { LiveSessionOptions } from "./live-session-options.ts";
import { ApiError } from "../router/errors.ts";
import type { CompactResult, SessionEvent, SessionSnapshot, SessionStateEvent } from "../router/types.ts";
import type { EventBus } from "./event-bus.ts";
import { PermissionBroker } from "./permission-broker.ts";
import { runManualCompaction } from "./session-compaction.ts";
import { lastContextTokens, metaNote, NEW_SESSION_TITLE, sameState, shorten, titleOf } from "./session-derive.ts";
import { SessionHooks } from "./session-hooks.ts";
import { runSessionPrompt, type PendingPrompt, type PendingRun, type SessionRunState } from "./session-prompt-run.ts";
import { SessionRunQueue } from "./session-run-queue.ts";
import { observeSessionEvent, type SessionEventTarget } from "./session-event-observer.ts";

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
  private readonly runs: SessionRunQueue;
  private readonly options: LiveSessionOptions;
  private wiring: SessionWiring | undefined;
  /** The conversation's system prompt, memory files and skills. */
  readonly context: SessionContextCache;
  /** The error that ended the current run, if one did (the Notification hook says so). */
  private stoppedBy: string | undefined;
  private lastState: SessionStateEvent | undefined;
  private readonly runningListeners = new Set<() => void>();
  private readonly unsubscribeStore: () => void;
  /** Agents started with `run_in_background`; they outlive the prompt that started them. */
  private readonly backgroundAgents = new BackgroundAgents();
  /** SessionStart ran (with this session's first prompt here): SessionEnd runs when it closes. */
  private readonly runState: SessionRunState;
  private readonly hooks: SessionHooks;
  private readonly eventTarget: SessionEventTarget;

  constructor(options: LiveSessionOptions) {
    this.options = options;
    this.sessionId = options.sessionId;
    this.runtime = options.runtime;
    this.bus = options.bus;
    this.history = [...(options.history ?? [])];
    this.title = options.title ?? titleOf(this.history) ?? NEW_SESSION_TITLE;
    this.updatedAt = options.updatedAt ?? new Date().toISOString();
    this.runs = new SessionRunQueue({
      maxQueued: options.maxQueuedPrompts,
      start: (prompt) => this.start(prompt),
      onChange: () => this.publishStateIfChanged(),
      onIdle: (aborted) => this.settle(aborted),
    });
    this.runState = { started: false, telemetry: undefined, ...(options.startSource ? { startSource: options.startSource } : {}) };
    const base = this.runtime.store.getState();
    this.store = createStore(
      createInitialAppState({
        model: options.model ?? base.model,
        permissionMode: options.permissionMode ?? base.permissionMode,
      }),
    );
    this.gate = this.runtime.createGate(this.store);
    this.context = new SessionContextCache(() => this.runtime.sessionContext(this.store.getState().model));
    this.hooks = new SessionHooks({
      sessionId: this.sessionId,
      bus: this.bus,
      wiring: () => this.sessionWiring(),
      existingWiring: () => this.wiring,
    });
    this.contextTokens = lastContextTokens(this.history);
    this.eventTarget = {
      history: this.history,
      broker: this.broker,
      messageAt: (timestamp) => {
        this.updatedAt = timestamp;
      },
      contextTokens: (tokens) => {
        this.contextTokens = tokens;
        this.publishStateIfChanged();
      },
      stoppedBy: (reason) => {
        this.stoppedBy = reason;
      },
      notify: (notification) => void this.notify(notification),
    };
    this.unsubscribeStore = this.store.subscribe(() => this.publishStateIfChanged());
    // A background agent that finishes while the session is idle wakes it: its result becomes the next turn.
    this.backgroundAgents.onFinished(() => this.deliverBackgroundResults());
    this.backgroundAgents.onChange(() => this.publishStateIfChanged());
  }

  get running(): boolean {
    return this.runs.running;
  }

  /** Calls `listener` each time a run starts or the session becomes idle (as its state events say). */
  onRunningChange(listener: () => void): void {
    this.runningListeners.add(listener);
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
      queued: this.runs.queued,
      backgroundAgents: this.backgroundAgents.views(),
    };
  }

  snapshot(): SessionSnapshot {
    const { type: _type, ...state } = this.state();
    const contextWindow = this.sessionWiring().compactor.contextUsage({ messages: [], model: state.model, systemPrompt: [] }).contextWindow;
    const lastSeq = this.bus.lastSeq(this.sessionId);
    return {
      sessionId: this.sessionId,
      title: this.title,
      messages: this.messages(),
      ...state,
      contextWindow,
      pendingPermissions: this.pendingPermissions(),
      lastSeq,
      streamingFromSeq: this.streamingFromSeq,
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
    return this.runs.enqueue({ text: prompt });
  }

  /** `/<skill> [args]`: the skill's text becomes the prompt; its `allowed-tools` hold while that prompt runs. */
  sendSkill(skill: SkillDefinition, args: string): { queued: boolean; position: number } {
    return this.runs.enqueue({ text: `/${skill.name}${args ? ` ${args}` : ""}`, skill: { definition: skill, args } });
  }

  /**
   * Carries on the turn another node left waiting for these permission answers (the session was taken
   * over): the questions are shown at once, under their ids, and asked again as the turn resumes.
   */
  resumeTurn(questions: PermissionRequest[]): void {
    for (const question of questions) this.broker.announce(question);
    void this.begin((signal) => this.run({ resume: questions }, signal));
  }

  /** Aborts the running prompt and drops the queued ones. */
  interrupt(): boolean {
    return this.runs.interrupt();
  }

  /** Resolves when no prompt runs (queued ones included). */
  idle(): Promise<void> {
    return this.runs.idle();
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
    await this.context.close();
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
    if (this.running) throw new ApiError("session_busy", "Wait for the agent to finish (or interrupt it) first");
    await this.record([metaNote(text, this.history.at(-1)?.uuid ?? null)]);
  }

  /** Appends messages made outside a run (a note, the close of a turn another node left unfinished), durably, and shows them. */
  async record(messages: readonly ConversationMessage[]): Promise<void> {
    const sink = this.sessionWiring().sink;
    for (const message of messages) await sink.appendMessage(message);
    await sink.flush();
    for (const message of messages) this.publish({ type: "message", message });
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
    if (this.running) throw new ApiError("session_busy", "Wait for the running prompt to end (or interrupt it) before compacting");
    let outcome: CompactResult | ApiError = new ApiError("compaction_failed", "The compaction did not run");
    await this.begin(async (signal) => {
      const { compactor, sink, hooks } = this.sessionWiring();
      const session = { compactor, sink, hooks, messages: repairForResume(this.history), model: this.store.getState().model };
      const { systemPrompt, model } = this.runtime;
      const run = { instructions, signal, readFileState: this.readFileState };
      outcome = await runManualCompaction({ ...session, systemPrompt, client: model.client, lastInputTokens: this.contextTokens }, run, (event) =>
        this.publish(event),
      );
      if (!(outcome instanceof ApiError)) this.contextTokens = outcome.postTokens;
    });
    if (outcome instanceof ApiError) throw outcome;
    return outcome;
  }

  /** Results of background agents that finished while no prompt ran: they start the next turn. */
  private deliverBackgroundResults(): void {
    if (this.running || !this.backgroundAgents.hasPending()) return;
    this.start({ text: this.backgroundAgents.takeNotifications().map(taskNotificationText).join("\n\n") });
  }

  private start(prompt: PendingPrompt): void {
    if (this.title === NEW_SESSION_TITLE) this.title = shorten(prompt.text);
    void this.begin((signal) => this.run(prompt, signal));
  }

  /** Runs `task` as the session's one active run; queued prompts follow it. */
  private begin(task: (signal: AbortSignal) => Promise<void>): Promise<void> {
    return this.runs.begin((signal) => {
      this.stoppedBy = undefined;
      return task(signal);
    });
  }

  /** The run ended with nothing queued: background results start the next turn, or the session waits for the user. */
  private settle(aborted: boolean): void {
    if (this.backgroundAgents.hasPending()) {
      this.deliverBackgroundResults();
      return;
    }
    this.publishStateIfChanged();
    // Claude Code's contract has no error type: a run an error stopped is an idle prompt that says so.
    const message = this.stoppedBy ? `Cairn stopped on an error: ${this.stoppedBy}` : "Cairn is waiting for your input";
    if (!aborted) void this.notify({ notificationType: "idle_prompt", message });
  }

  private run(pending: PendingRun, signal: AbortSignal): Promise<void> {
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
        context: () => this.context.get(),
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
    observeSessionEvent(event, this.eventTarget);
  }

  /** An event made outside a prompt run: observed, then on the bus. */
  private publish(event: AgentEvent): void {
    this.observe(event);
    this.bus.publish(this.sessionId, event);
  }

  private publishStateIfChanged(): void {
    const next = this.state();
    if (this.lastState && sameState(this.lastState, next)) return;
    const runningChanged = this.lastState?.running !== next.running;
    this.lastState = next;
    this.bus.publish(this.sessionId, next);
    if (runningChanged) for (const listener of this.runningListeners) listener();
  }
}
