import { carriedStateSchema, type CarriedState, type OwnershipHost, type SessionCommand, type SessionOwnership } from "../hub/session-ownership.ts";
import { ApiError } from "../router/errors.ts";
import type { SessionLeaseStore } from "./postgres/session-leases.ts";
import { OwnerUnreachableError, type RedisCommandChannel } from "./redis/command-channel.ts";

export const DEFAULT_LEASE_TTL_MS = 8_000;

export type SessionLeasingOptions = {
  nodeId: string;
  leases: SessionLeaseStore;
  /** How long a lease lasts without renewal (ms). Default 8,000: a dead owner's session moves within ~9 s. */
  ttlMs?: number;
  /** How often held leases are renewed and followed sessions checked (ms). Default a quarter of the TTL, at most 1 s. */
  tickMs?: number;
  /**
   * Called with the new generation when this node takes a session over, before it loads or publishes
   * anything: the event stream's fence is raised there, so a stale owner's events are refused too.
   */
  fenceEvents?: (sessionId: string, generation: number) => Promise<void>;
  onError?: (error: Error, context: string) => void;
};

/**
 * Session leases for one node: the leases it holds (session → generation, the fencing token its
 * transcript appends carry), renewed together in one statement every tick; commands routed to the
 * owner over the command channel; takeover when a lease lapses, on the next command or because a tab
 * here follows the session. A lease found taken at renewal stops the session here (the host's `lost`);
 * writes that race the takeover are refused by the database's generation check.
 */
export class SessionLeasing implements SessionOwnership {
  readonly nodeId: string;
  private readonly options: SessionLeasingOptions;
  private readonly held = new Map<string, number>();
  /** One acquire at a time per session (a command and the follow check may race). */
  private readonly acquiring = new Map<string, Promise<boolean>>();
  private host: OwnershipHost | undefined;
  private channel: RedisCommandChannel | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private ticking = false;
  private closed = false;

  constructor(options: SessionLeasingOptions) {
    this.options = options;
    this.nodeId = options.nodeId;
  }

  /**
   * Routes commands for sessions owned elsewhere over `channel` (made after this object, since it
   * delivers to `handle`). Without one, a session owned by another live node is refused with its id.
   */
  attach(channel: RedisCommandChannel): void {
    this.channel = channel;
  }

  get ttlMs(): number {
    return this.options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  }

  /** The generation this node holds for the session (the transcript store's fence), or undefined. */
  readonly fence = (sessionId: string): number | undefined => this.held.get(sessionId);

  start(host: OwnershipHost): void {
    this.host = host;
    const tickMs = this.options.tickMs ?? Math.min(1_000, this.ttlMs / 4);
    this.timer = setInterval(() => void this.tick(), tickMs);
    this.timer.unref();
  }

  holds(sessionId: string): boolean {
    return this.held.has(sessionId);
  }

  async claimNew(sessionId: string): Promise<void> {
    const result = await this.options.leases.acquire(sessionId, this.nodeId);
    if (!result.acquired) throw new ApiError("session_busy", `Session ${sessionId} is already owned by ${result.owner ?? "another node"}`);
    this.held.set(sessionId, result.generation);
  }

  async known(sessionId: string): Promise<boolean> {
    if (this.held.has(sessionId)) return true;
    return (await this.options.leases.read([sessionId])).length > 0;
  }

  async route<T>(command: SessionCommand, here: () => Promise<T>): Promise<T> {
    const { sessionId } = command;
    const deadline = Date.now() + this.ttlMs * 2 + 5_000;
    for (;;) {
      if (this.closed) throw new ApiError("owner_unreachable", "This node is shutting down");
      if (this.held.has(sessionId)) return here();
      if (await this.acquire(sessionId)) continue;
      const [lease] = await this.options.leases.read([sessionId]);
      const owner = lease?.owner;
      if (!owner || lease.expired) continue;
      if (owner === this.nodeId)
        throw new ApiError(
          "owner_unreachable",
          `An earlier process with this node id (${owner}) still holds session ${sessionId}; it is free when its lease lapses`,
        );
      const channel = this.channel;
      if (!channel) throw new ApiError("not_owner", `Session ${sessionId} runs on node ${owner}; send its commands there (no Redis to route them)`);
      try {
        // The owner runs it and answers with the same JSON this node's `here` would have returned.
        return (await channel.call(owner, command)) as T;
      } catch (error) {
        const passOn = error instanceof OwnerUnreachableError || (error instanceof ApiError && error.code === "not_owner");
        if (!passOn) throw error;
        if (Date.now() > deadline) throw new ApiError("owner_unreachable", `Node ${owner} owns session ${sessionId} but does not answer`, { cause: error });
        // A dead or stalled owner stops renewing: wait a little and look at the lease again.
        if (error instanceof OwnerUnreachableError) await delay(Math.min(500, this.ttlMs / 8));
      }
    }
  }

  async carry(sessionId: string, state: CarriedState): Promise<void> {
    const generation = this.held.get(sessionId);
    if (generation === undefined) return;
    await this.options.leases.saveState(sessionId, this.nodeId, generation, state);
  }

  async release(sessionId: string): Promise<void> {
    const generation = this.held.get(sessionId);
    if (generation === undefined) return;
    this.held.delete(sessionId);
    await this.options.leases.release(sessionId, this.nodeId, generation);
  }

  /** Answers a command sent to this node: run it when the lease is still here, else tell the sender to look again. */
  async handle(command: SessionCommand): Promise<unknown> {
    const host = this.host;
    if (!host || this.closed || !this.held.has(command.sessionId))
      throw new ApiError("not_owner", `Node ${this.nodeId} does not own session ${command.sessionId}`);
    return host.execute(command);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    const sessions = [...this.held.keys()];
    await Promise.all(sessions.map((sessionId) => this.release(sessionId).catch((error: unknown) => this.options.onError?.(error as Error, "lease release"))));
  }

  /** Takes the lease when it is free, released or lapsed; tells the host, which reloads the session. */
  private acquire(sessionId: string): Promise<boolean> {
    let pending = this.acquiring.get(sessionId);
    if (!pending) {
      pending = (async () => {
        if (this.held.has(sessionId)) return true;
        const result = await this.options.leases.acquire(sessionId, this.nodeId);
        if (!result.acquired) return false;
        this.held.set(sessionId, result.generation);
        try {
          await this.options.fenceEvents?.(sessionId, result.generation);
        } catch (error) {
          // Redis is away: nothing can be published (by anyone) until it is back, and this node's first append raises the fence.
          this.options.onError?.(error as Error, `raising the event fence of session ${sessionId}`);
        }
        const carried = carriedStateSchema.safeParse(result.state);
        try {
          await this.host?.acquired(sessionId, {
            crashed: result.previousOwner !== null,
            previousOwner: result.previousOwner,
            carried: carried.success ? carried.data : undefined,
          });
        } catch (error) {
          this.options.onError?.(error as Error, `taking over session ${sessionId}`);
        }
        return true;
      })().finally(() => this.acquiring.delete(sessionId));
      this.acquiring.set(sessionId, pending);
    }
    return pending;
  }

  /** Renews the leases held; takes over followed sessions whose owner's lease has lapsed. */
  private async tick(): Promise<void> {
    if (this.ticking || this.closed) return;
    this.ticking = true;
    try {
      const held = [...this.held].map(([sessionId, generation]) => ({ sessionId, generation }));
      const kept = await this.options.leases.renew(this.nodeId, held);
      for (const { sessionId, generation } of held) {
        if (kept.has(sessionId) || this.held.get(sessionId) !== generation) continue;
        this.held.delete(sessionId);
        this.host?.lost(sessionId);
      }
      const followed = (this.host?.watched() ?? []).filter((sessionId) => !this.held.has(sessionId));
      for (const lease of await this.options.leases.read(followed)) {
        if (lease.expired && lease.owner !== null) await this.acquire(lease.sessionId);
      }
    } catch (error) {
      // The database is away: leases are not renewed (another node may take them once it is back, and fencing holds).
      this.options.onError?.(error as Error, "lease renewal");
    } finally {
      this.ticking = false;
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
