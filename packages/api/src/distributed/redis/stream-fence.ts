import type { ChainableCommander, Redis } from "ioredis";

/**
 * XADDs behind the session's fence, in one script so nothing comes between the check and the appends:
 * refused (the fence is answered, a number) when the publisher's lease generation is older than the
 * fence; otherwise the fence moves up to it (after a Redis that lost the key) and the entries are added
 * in order. An entry Redis refuses (an id not past the stream's last) does not stop the ones after it;
 * the answer lists what was refused and why (empty: all added).
 * KEYS: stream, fence. ARGV: generation, MAXLEN, then entry id and event JSON for each entry.
 */
const FENCED_XADD = `
local fence = tonumber(redis.call('GET', KEYS[2]) or '0')
local generation = tonumber(ARGV[1])
if generation < fence then return fence end
if generation > fence then redis.call('SET', KEYS[2], ARGV[1]) end
local refused = {}
for i = 3, #ARGV, 2 do
  local added = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], ARGV[i], 'e', ARGV[i + 1])
  if type(added) == 'table' and added.err then refused[#refused + 1] = ARGV[i] .. ': ' .. added.err end
end
return refused`;

/** Raises the fence to a generation (never lowers it). KEYS: fence. ARGV: generation. */
const RAISE_FENCE = `
if tonumber(ARGV[1]) > tonumber(redis.call('GET', KEYS[1]) or '0') then redis.call('SET', KEYS[1], ARGV[1]) end
return 1`;

/** One stream entry: its id (`<seq>-0`) and the event's JSON. */
export type StreamEntry = { id: string; payload: string };

type FencedCommands = {
  cairnRaiseFence(fence: string, generation: number): Promise<number>;
};

type FencedPipeline = ChainableCommander & {
  cairnFencedXadd(stream: string, fence: string, generation: number, maxLen: number, ...entries: string[]): ChainableCommander;
};

/** What a fenced append answered: the entries Redis refused (usually none), or the fence that refused them all. */
export type FencedAppendResult = { refused: string[] } | { fence: number };

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

  /**
   * Queues on a pipeline (made from this fence's connection) the append of the entries in order, in one script
   * call, refused whole if the fence has passed `generation`; `result` reads its answer.
   */
  appendTo(pipeline: ChainableCommander, stream: string, fence: string, generation: number, maxLen: number, entries: readonly StreamEntry[]): void {
    (pipeline as FencedPipeline).cairnFencedXadd(stream, fence, generation, maxLen, ...entryArguments(entries));
  }

  /** A fenced append's answer: `{ fence }` when it was refused (nothing added), else the entries Redis refused, each as `<id>: <reason>`. */
  static result(answer: unknown): FencedAppendResult {
    return typeof answer === "number" ? { fence: answer } : { refused: Array.isArray(answer) ? answer.map(String) : [] };
  }

  async raise(fence: string, generation: number): Promise<void> {
    await this.redis.cairnRaiseFence(fence, generation);
  }
}

function entryArguments(entries: readonly StreamEntry[]): string[] {
  return entries.flatMap((entry) => [entry.id, entry.payload]);
}
