import type { Redis } from "ioredis";

/**
 * XADD behind the session's fence, in one script so nothing comes between the check and the append:
 * refused (the fence is answered, a number) when the publisher's lease generation is older than the
 * fence; otherwise the fence moves up to it (after a Redis that lost the key) and the entry is added.
 * KEYS: stream, fence. ARGV: generation, MAXLEN, entry id, event JSON.
 */
const FENCED_XADD = `
local fence = tonumber(redis.call('GET', KEYS[2]) or '0')
local generation = tonumber(ARGV[1])
if generation < fence then return fence end
if generation > fence then redis.call('SET', KEYS[2], ARGV[1]) end
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], ARGV[3], 'e', ARGV[4])`;

/** Raises the fence to a generation (never lowers it). KEYS: fence. ARGV: generation. */
const RAISE_FENCE = `
if tonumber(ARGV[1]) > tonumber(redis.call('GET', KEYS[1]) or '0') then redis.call('SET', KEYS[1], ARGV[1]) end
return 1`;

type FencedCommands = {
  cairnFencedXadd(stream: string, fence: string, generation: number, maxLen: number, id: string, payload: string): Promise<string | number>;
  cairnRaiseFence(fence: string, generation: number): Promise<number>;
};

/**
 * Each session's stream has a fence next to it: the newest lease generation that has published to it
 * or taken the session over. An append names the generation its node holds, and a stale owner (a
 * paused process that wakes after another node took the session over) has its appends refused by
 * Redis itself, whatever its clock or its view of the lease. Scripts run with EVALSHA (ioredis loads
 * them again after a Redis restart).
 */
export class StreamFence {
  private readonly redis: Redis & FencedCommands;

  constructor(redis: Redis) {
    redis.defineCommand("cairnFencedXadd", { numberOfKeys: 2, lua: FENCED_XADD });
    redis.defineCommand("cairnRaiseFence", { numberOfKeys: 1, lua: RAISE_FENCE });
    this.redis = redis as Redis & FencedCommands;
  }

  /** Appends unless the fence has passed `generation`: the entry id, or `{ fence }` when refused. */
  async append(stream: string, fence: string, generation: number, maxLen: number, id: string, payload: string): Promise<string | { fence: number }> {
    const answer = await this.redis.cairnFencedXadd(stream, fence, generation, maxLen, id, payload);
    return typeof answer === "number" ? { fence: answer } : answer;
  }

  async raise(fence: string, generation: number): Promise<void> {
    await this.redis.cairnRaiseFence(fence, generation);
  }
}
