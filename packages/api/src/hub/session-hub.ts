import { randomUUID } from "node:crypto";
import { parseSlashCommand, resolveSlashCommand, slashCommandList, type SessionMemory } from "@cairn/core";
import type { ConversationMessage, PermissionAnswer, PermissionBehavior, PermissionMode } from "@cairn/core/schema";
import type { CheckpointStore, RestoreResult } from "@cairn/core/node";
import type { Runtime } from "../runtime/runtime-types.ts";
import type { SequencedEvent, SessionsPort } from "../router/context.ts";
import { ApiError } from "../router/errors.ts";
import type {
  CompactResult,
  MemoryView,
  RewindMode,
  RewindPreview,
  RewindResult,
  SendResult,
  SessionEvent,
  SessionSnapshot,
  SessionSummary,
} from "../router/types.ts";
import { MemoryEventBus, type EventBus } from "./event-bus.ts";
import { EventFeed, type EventFeedOptions, streamEvents } from "./event-stream.ts";
import { LiveSession } from "./live-session.ts";
import { drainSessions } from "./session-drain.ts";
import { runSlashCommand } from "./session-slash-command.ts";
import { sessionSummaries } from "./session-summaries.ts";
import { restoreCheckpoint, rewindSession } from "./session-rewind.ts";
import { SessionCheckpoints } from "./session-checkpoints.ts";
import { addSessionRule, assertBypassAllowed, bypassAllowed, removeSessionRule } from "./session-rules.ts";
import { carrySessionState } from "./session-state-carry.ts";
import type { SessionCommand } from "./session-ownership.ts";
import { ownershipHost } from "./session-takeover.ts";
import { forkAt, loadSession, rewindFilesPreview } from "./session-files.ts";
import type { WorktreeRecord } from "../worktree/worktree-registry.ts";
import { DEFAULT_IDLE_TIMEOUT_MS, EMPTY_SESSION_IDLE_MS, type SessionHubOptions } from "./session-hub-options.ts";

/**
 * Every session of the server's workspace that a tab has touched, kept live: a session keeps
 * running when its tabs close. Built once from the Runtime; the router reaches it as `SessionsPort`.
 */
export class SessionHub implements SessionsPort {
  readonly bus: EventBus;
  private readonly runtime: Runtime;
  private readonly options: SessionHubOptions;
  private readonly live = new Map<string, LiveSession>();
  private readonly loading = new Map<string, Promise<LiveSession>>();
  private readonly checkpointStores: SessionCheckpoints;
  /** The runtime of each live session that does not run in the main checkout (a worktree session's). */
  private readonly sessionRuntimes = new Map<string, Runtime>();
  private closed = false;
  private readonly touched = new Map<string, number>();
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private workspaceMemory: Promise<SessionMemory> | undefined;

  constructor(options: SessionHubOptions) {
    this.options = options;
    this.runtime = options.runtime;
    this.bus = options.bus ?? new MemoryEventBus();
    this.checkpointStores = new SessionCheckpoints(this.runtime, options.checkpoints !== false);
    options.ownership?.start(
      ownershipHost({
        live: this.live,
        bus: this.bus,
        load: (sessionId) => this.require(sessionId),
        sessions: this,
        carry: (session) => this.carry(session),
        modeAllowed: (mode) => mode !== "bypassPermissions" || bypassAllowed(this.runtime, this.options.sandboxed ?? false),
      }),
    );
    const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    if (idleMs > 0 && Number.isFinite(idleMs)) {
      this.sweeper = setInterval(() => void this.evictIdle(idleMs), Math.min(60_000, Math.max(10, idleMs / 2)));
      this.sweeper.unref();
    }
  }

  /**
   * Lets go of sessions nobody runs, watches or has touched for `idleMs`: their transcript stays on
   * disk and they load again on the next request. A tab that reconnects afterwards is ahead of the
   * restarted seq counter and gets the conversation as a backfill.
   */
  async evictIdle(idleMs: number): Promise<string[]> {
    const now = Date.now();
    const evicted: string[] = [];
    for (const [sessionId, session] of this.live) {
      if (session.running || this.bus.listenerCount(sessionId) > 0 || session.pendingPermissions().length > 0) continue;
      // A session with nothing on disk yet cannot be loaded again: give its first prompt time to arrive.
      const limit = session.messageCount === 0 ? Math.max(idleMs, EMPTY_SESSION_IDLE_MS) : idleMs;
      if (now - (this.touched.get(sessionId) ?? 0) < limit) continue;
      this.live.delete(sessionId);
      this.touched.delete(sessionId);
      this.sessionRuntimes.delete(sessionId);
      this.bus.drop(sessionId);
      evicted.push(sessionId);
      await session.close().catch(() => undefined);
      await this.options.ownership?.release(sessionId).catch(() => undefined);
    }
    return evicted;
  }

  async create(options: { model?: string; permissionMode?: PermissionMode; startSource?: "clear" }): Promise<{ sessionId: string }> {
    if (options.permissionMode === "bypassPermissions") this.assertBypassAllowed();
    const session = this.adopt(randomUUID(), options);
    await this.options.ownership?.claimNew(session.sessionId);
    // Listed on every node sharing the store from now on, not from its first line.
    await this.runtime.transcripts.register?.(session.sessionId);
    this.carry(session);
    return { sessionId: session.sessionId };
  }

  /** A new session in a git worktree and branch of its own (refused with a clear message outside a repository). */
  async createInWorktree(options: { model?: string; permissionMode?: PermissionMode }): Promise<{ sessionId: string; worktree: WorktreeRecord }> {
    if (!this.options.worktrees) throw new ApiError("not_implemented", "Worktree sessions are not available on this server");
    if (options.permissionMode === "bypassPermissions") this.assertBypassAllowed();
    const sessionId = randomUUID();
    const { record, runtime } = await this.options.worktrees.create(sessionId);
    this.adopt(sessionId, options, runtime);
    return { sessionId, worktree: record };
  }

  /** The runtime a session's tools, files and git run in: its worktree's, or the main checkout's. */
  async runtimeOf(sessionId: string): Promise<Runtime> {
    await this.require(sessionId);
    return this.sessionRuntimes.get(sessionId) ?? this.runtime;
  }

  /** The file checkpoints of the checkout a session runs in (undefined when turned off). */
  async checkpointsOf(sessionId: string): Promise<CheckpointStore | undefined> {
    return this.checkpointStores.for(await this.runtimeOf(sessionId));
  }

  /** Stops a live session and lets go of it (its transcript stays); used before its worktree is removed. */
  async release(sessionId: string): Promise<void> {
    const session = this.live.get(sessionId);
    this.live.delete(sessionId);
    this.touched.delete(sessionId);
    this.sessionRuntimes.delete(sessionId);
    await session?.close().catch(() => undefined);
  }

  async list(): Promise<SessionSummary[]> {
    const stored = await this.runtime.transcripts.list();
    const worktrees = new Map((await this.options.worktrees?.all())?.map((record) => [record.sessionId, record]));
    // A session another node owns is listed as the shared store has it: this node's copy (a tab here follows it) may be behind.
    const ownership = this.options.ownership;
    const followed = ownership ? new Set([...this.live.keys()].filter((sessionId) => !ownership.holds(sessionId))) : undefined;
    return sessionSummaries(stored, this.live.values(), worktrees, followed);
  }

  async get(sessionId: string): Promise<SessionSnapshot> {
    return this.routed({ kind: "get", sessionId }, async () => (await this.require(sessionId)).snapshot());
  }

  /** Runs or queues a prompt; `/<name> [args]` runs a built-in or a skill, and an unknown command sends nothing. */
  send(sessionId: string, prompt: string): Promise<SendResult> {
    return this.routed({ kind: "send", sessionId, prompt }, () => this.sendHere(sessionId, prompt));
  }

  private async sendHere(sessionId: string, prompt: string): Promise<SendResult> {
    const session = await this.require(sessionId);
    const worktree = await this.options.worktrees?.record(sessionId);
    if (worktree?.discardedAt !== undefined)
      throw new ApiError("worktree_not_found", `This session's worktree was discarded (${worktree?.branch} is gone): start a new session to go on.`);
    // A shared bus: number this node's events after whatever another node published last.
    if (!session.running) await this.bus.prepare?.(sessionId);
    // A plain prompt is queued at once; only a slash command waits for the skill catalog.
    if (!parseSlashCommand(prompt)) return session.send(prompt);
    const catalog = await session.context.skills();
    this.touched.set(sessionId, Date.now());
    const slash = resolveSlashCommand(prompt, catalog);
    if (!slash) return session.send(prompt);
    return runSlashCommand(session, slash, catalog, (options) => this.create(options));
  }

  /** A session's memory view; without a session, the workspace's (what a new session would start with). */
  async memory(sessionId: string | undefined): Promise<MemoryView> {
    if (sessionId !== undefined) return (await this.require(sessionId)).context.memoryView();
    this.workspaceMemory ??= this.runtime.sessionContext(this.runtime.store.getState().model).then((context) => context.memory);
    const overview = await (await this.workspaceMemory).overview();
    return { ...overview, commands: slashCommandList(overview) };
  }

  interrupt(sessionId: string): Promise<{ interrupted: boolean }> {
    return this.routed({ kind: "interrupt", sessionId }, async () => ({ interrupted: (await this.require(sessionId)).interrupt() }));
  }

  async setMode(sessionId: string, mode: PermissionMode): Promise<void> {
    if (mode === "bypassPermissions") this.assertBypassAllowed();
    await this.routed({ kind: "set-mode", sessionId, mode }, async () => {
      const session = await this.require(sessionId);
      if (mode === "bypassPermissions") this.assertBypassAllowed();
      session.setMode(mode);
      return null;
    });
  }

  async setModel(sessionId: string, model: string): Promise<void> {
    await this.routed({ kind: "set-model", sessionId, model }, async () => {
      (await this.require(sessionId)).setModel(model);
      return null;
    });
  }

  compact(sessionId: string, instructions: string | undefined): Promise<CompactResult> {
    const command: SessionCommand = { kind: "compact", sessionId, ...(instructions !== undefined ? { instructions } : {}) };
    return this.routed(command, async () => (await this.require(sessionId)).compact(instructions));
  }

  fork(sessionId: string, messageUuid: string): Promise<{ sessionId: string }> {
    return this.routed({ kind: "fork", sessionId, messageUuid }, async () => {
      const session = await this.require(sessionId);
      await session.flush();
      const forkedId = randomUUID();
      await forkAt(this.runtime, sessionId, messageUuid, forkedId);
      return { sessionId: forkedId };
    });
  }

  rewind(sessionId: string, messageUuid: string, mode: RewindMode): Promise<RewindResult> {
    return this.routed({ kind: "rewind", sessionId, messageUuid, mode }, async () => {
      const session = await this.require(sessionId);
      return rewindSession(session, messageUuid, mode, {
        transcripts: this.runtime.transcripts,
        checkpoints: () => this.checkpointsOf(sessionId),
        forkBefore: async (parentUuid) => {
          const forkedId = randomUUID();
          if (parentUuid === null) this.adopt(forkedId, { model: session.store.getState().model });
          else await forkAt(this.runtime, sessionId, parentUuid, forkedId);
          return forkedId;
        },
      });
    });
  }

  /** The files a rewind of the files to `messageUuid` would change (restore, delete or bring back). */
  rewindPreview(sessionId: string, messageUuid: string): Promise<RewindPreview> {
    return this.routed({ kind: "rewind-preview", sessionId, messageUuid }, async () => {
      const session = await this.require(sessionId);
      await session.flush();
      const checkpoints = await this.checkpointsOf(sessionId);
      if (!checkpoints) return { available: false, checkpoint: null, files: [] };
      const preview = await rewindFilesPreview(checkpoints, this.runtime.transcripts, sessionId, messageUuid);
      return { available: true, checkpoint: preview.checkpoint, files: preview.files };
    });
  }

  /** Puts the files back as a checkpoint holds them (undoing a rewind with its backup); keeps a backup of the present too. */
  async restoreCheckpoint(commit: string, sessionId?: string): Promise<RestoreResult> {
    return restoreCheckpoint(sessionId === undefined ? this.checkpointStores.main : await this.checkpointsOf(sessionId), commit);
  }

  async *events(sessionId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<SequencedEvent> {
    await this.require(sessionId);
    yield* streamEvents({ ...this.feedOptions(sessionId, afterSeq), signal });
  }

  async eventFeed(sessionId: string, afterSeq: number): Promise<EventFeed> {
    await this.require(sessionId);
    return new EventFeed(this.feedOptions(sessionId, afterSeq));
  }

  private feedOptions(sessionId: string, afterSeq: number): EventFeedOptions {
    return { bus: this.bus, sessionId, afterSeq, backfill: () => this.backfill(sessionId) };
  }

  /**
   * What a subscriber too far behind the bus gets: the owner's conversation, pending questions and state. With
   * leases that is the owner node's (this node's copy of a session another node runs may be behind); the session
   * may also have been replaced meanwhile (taken over here), so it is looked up at each resync.
   */
  backfill(sessionId: string): Promise<SessionEvent[]> {
    return this.routed({ kind: "backfill", sessionId }, async () => (await this.require(sessionId)).backfill());
  }

  respond(sessionId: string, requestId: string, answer: PermissionAnswer): Promise<{ accepted: boolean }> {
    return this.routed({ kind: "respond", sessionId, requestId, answer }, async () => ({
      accepted: (await this.require(sessionId)).broker.respond(requestId, answer),
    }));
  }

  async addSessionRule(sessionId: string, behavior: PermissionBehavior, rule: string): Promise<void> {
    await this.routed({ kind: "add-rule", sessionId, behavior, rule }, async () => {
      addSessionRule((await this.require(sessionId)).store, behavior, rule);
      return null;
    });
  }

  removeSessionRule(sessionId: string, behavior: PermissionBehavior, rule: string): Promise<boolean> {
    return this.routed({ kind: "remove-rule", sessionId, behavior, rule }, async () =>
      removeSessionRule((await this.require(sessionId)).store, behavior, rule),
    );
  }

  /** The session's allow rules for this session only (settings.get shows them). */
  sessionRules(sessionId: string): Promise<readonly string[]> {
    return this.routed({ kind: "rules", sessionId }, async () => (await this.require(sessionId)).store.getState().sessionAllowRules);
  }

  /** The session, loaded from its transcript when it is not live (session_not_found when there is none). */
  session(sessionId: string): Promise<LiveSession> {
    return this.require(sessionId);
  }

  /** The workspace's shadow-git checkpoints (undefined when turned off). */
  get checkpoints(): CheckpointStore | undefined {
    return this.checkpointStores.main;
  }

  liveSession(sessionId: string): LiveSession | undefined {
    return this.live.get(sessionId);
  }

  /**
   * Stops every run and closes every transcript. With session leases the node drains first: idle
   * sessions are handed over at once, running prompts may finish (up to `drainTimeoutMs`), and what
   * still runs then is interrupted and handed over; another node takes each one on its next command.
   */
  async close(): Promise<void> {
    const ownership = this.options.ownership;
    if (ownership && !this.closed) await drainSessions(ownership, this.live, this.options.drainTimeoutMs ?? 30_000);
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.allSettled(this.loading.values());
    await Promise.all([...this.live.values()].map((session) => session.close()));
    this.live.clear();
    this.sessionRuntimes.clear();
    await this.options.worktrees?.close();
    await this.workspaceMemory?.then((memory) => memory.close()).catch(() => undefined);
    await ownership?.close();
  }

  /** A command that must run where the session's owner is (this node when embedded). */
  private routed<T>(command: SessionCommand, here: () => Promise<T>): Promise<T> {
    const ownership = this.options.ownership;
    return ownership ? ownership.route(command, here) : here();
  }

  private async require(sessionId: string): Promise<LiveSession> {
    if (this.closed) throw new ApiError("session_not_found", "The server is shutting down");
    this.touched.set(sessionId, Date.now());
    const existing = this.live.get(sessionId);
    if (existing) return existing;
    let pending = this.loading.get(sessionId);
    if (!pending) {
      pending = this.load(sessionId).finally(() => this.loading.delete(sessionId));
      this.loading.set(sessionId, pending);
    }
    return pending;
  }

  private async load(sessionId: string): Promise<LiveSession> {
    // A session another node created but has not written to yet is known by its lease: followed here from its creation.
    const loaded = (await loadSession(this.runtime, sessionId)) ?? ((await this.options.ownership?.known(sessionId)) ? {} : undefined);
    if (!loaded) throw new ApiError("session_not_found", `No session ${sessionId} in ${this.runtime.workspaceRoot}`);
    // A worktree session resumes in its worktree (a discarded one is only read, in the main checkout).
    const runtime = (await this.options.worktrees?.runtime(sessionId)) ?? this.runtime;
    await this.bus.prepare?.(sessionId);
    return this.live.get(sessionId) ?? this.adopt(sessionId, loaded, runtime);
  }

  private adopt(
    sessionId: string,
    seed: { model?: string; permissionMode?: PermissionMode; startSource?: "clear"; history?: ConversationMessage[]; title?: string; updatedAt?: string },
    runtime: Runtime = this.runtime,
  ): LiveSession {
    const checkpoint = this.checkpointStores.promptCheckpoint(runtime);
    if (runtime !== this.runtime) this.sessionRuntimes.set(sessionId, runtime);
    const session = new LiveSession({
      sessionId,
      runtime,
      bus: this.bus,
      ...seed,
      ...(this.options.maxQueuedPrompts !== undefined ? { maxQueuedPrompts: this.options.maxQueuedPrompts } : {}),
      ...(this.options.deps ? { deps: this.options.deps } : {}),
      ...(checkpoint ? { checkpoint } : {}),
    });
    this.live.set(sessionId, session);
    this.touched.set(sessionId, Date.now());
    return session;
  }

  private assertBypassAllowed(): void {
    assertBypassAllowed(this.runtime, this.options.sandboxed ?? false);
  }

  /** This node owns the session: its mode, model and waiting permission questions are kept with the lease, for a node that takes it over. */
  private carry(session: LiveSession): void {
    const ownership = this.options.ownership;
    if (ownership) carrySessionState(session, (state) => ownership.carry(session.sessionId, state));
  }
}
