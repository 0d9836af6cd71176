/**
 * Token buckets per client (a `clientKey`): each counted act (a failed share lookup; a share stream
 * opened) takes one token; a client with none left is refused until the bucket refills. Kept in memory
 * (one server); buckets that are full again are forgotten, so the map stays as small as the set of
 * clients currently spending.
 */
export type RateLimiterOptions = {
  /** Acts allowed in a burst (default 30). */
  capacity?: number;
  /** Tokens regained per minute (default 30). */
  refillPerMinute?: number;
  now?: () => number;
  /** Buckets kept at most; the oldest are dropped past it (default 10,000). */
  maxClients?: number;
};

type Bucket = { tokens: number; updatedAt: number };

export class TokenBucketLimiter {
  private readonly capacity: number;
  private readonly refillPerMs: number;
  private readonly now: () => number;
  private readonly maxClients: number;
  private readonly buckets = new Map<string, Bucket>();

  constructor(options: RateLimiterOptions = {}) {
    this.capacity = options.capacity ?? 30;
    this.refillPerMs = (options.refillPerMinute ?? 30) / 60_000;
    this.now = options.now ?? Date.now;
    this.maxClients = options.maxClients ?? 10_000;
  }

  /** Whether the client may try a lookup now. */
  allowed(client: string): boolean {
    return this.level(client) >= 1;
  }

  /** Takes one token. */
  take(client: string): void {
    const tokens = this.level(client);
    this.buckets.delete(client);
    this.buckets.set(client, { tokens: Math.max(0, tokens - 1), updatedAt: this.now() });
    if (this.buckets.size > this.maxClients) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
  }

  private level(client: string): number {
    const bucket = this.buckets.get(client);
    if (!bucket) return this.capacity;
    const tokens = Math.min(this.capacity, bucket.tokens + (this.now() - bucket.updatedAt) * this.refillPerMs);
    if (tokens >= this.capacity) this.buckets.delete(client);
    return tokens;
  }
}
