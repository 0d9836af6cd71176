import type { ChainableCommander, Redis } from "ioredis";

/**
 * XADDs behind each session's fence, for any number of sessions in one script call, so nothing comes between a
 * check and its appends: a session's appends are refused (its fence is answered, a number) when the publisher's
 * lease generation is older than the fence; otherwise the fence moves up to it (after a Redis that lost the key)
 * and the entries are added in order. An entry Redis refuses (an id not past the stream's last) does not stop the
 * ones after it; the session's answer lists what was refused and why (empty: all added). The answer has one item
 * per session, in order.
 * KEYS: stream and fence of each session. ARGV: MAXLEN, then for each session its generation, its number of
 * entries, and each entry's id and event JSON.
 */
const FENCED_XADD = `
local maxLen = ARGV[1]
local answers = {}
local at = 2
for key = 1, #KEYS, 2 do
  local generation = tonumber(ARGV[at])
  local first = at + 2
  local after = first + 2 * tonumber(ARGV[at + 1])
  local fence = tonumber(redis.call('GET', KEYS[key + 1]) or '0')
  if generation < fence then
    answers[#answers + 1] = fence
  else
    if generation > fence then redis.call('SET', KEYS[key + 1], ARGV[at]) end
    local refused = {}
    for i = first, after - 1, 2 do
      local added = redis.pcall('XADD', KEYS[key], 'MAXLEN', '~', maxLen, ARGV[i], 'e', ARGV[i + 1])
      if type(added) == 'table' and added.err then refused[#refused + 1] = ARGV[i] .. ': ' .. added.err end
    end
    answers[#answers + 1] = refused
  end
  at = after
end
return answers`;

/** Raises the fence to a generation (never lowers it). KEYS: fence. ARGV: generation. */
const RAISE_FENCE = `
if tonumber(ARGV[1]) > tonumber(redis.call('GET', KEYS[1]) or '0') then redis.call('SET', KEYS[1], ARGV[1]) end
return 1`;

/** One stream entry: its id (`<seq>-0`) and the event's JSON. */
export type StreamEntry = { id: string; payload: string };

type FencedCommands = {
  cairnRaiseFence(fence: string, generation: number): Promise<number>;
  cairnFencedXadd(keyCount: number, keys: string[], args: Array<string | number>): Promise<unknown>;
};

type FencedPipeline = ChainableCommander & {
  cairnFencedXadd(keyCount: number, keys: string[], args: Array<string | number>): ChainableCommander;
};

/** One session's part of a fenced append: its stream and fence keys, the lease generation it is published under, its entries in order. */
export type FencedAppend = { stream: string; fence: string; generation: number; entries: readonly StreamEntry[] };

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
    // The number of keys is the call's first argument: two per session.
    redis.defineCommand("cairnFencedXadd", { lua: FENCED_XADD });
    redis.defineCommand("cairnRaiseFence", { numberOfKeys: 1, lua: RAISE_FENCE });
    this.redis = redis as Redis & FencedCommands;
  }

  /**
   * Queues on a pipeline (made from this fence's connection) one script call appending each session's entries in
   * order, each session's refused whole if its fence has passed its generation; `results` reads the answer.
   */
  appendTo(pipeline: ChainableCommander, maxLen: number, appends: readonly FencedAppend[]): void {
    const { keys, args } = scriptCall(maxLen, appends);
    (pipeline as FencedPipeline).cairnFencedXadd(keys.length, keys, args);
  }

  /** The same script call sent on its own (no pipeline to build when it is the only command); resolves to its raw answer. */
  append(maxLen: number, appends: readonly FencedAppend[]): Promise<unknown> {
    const { keys, args } = scriptCall(maxLen, appends);
    return this.redis.cairnFencedXadd(keys.length, keys, args);
  }

  /** A fenced append's answer, one per session in order: `{ fence }` when it was refused (nothing added), else the entries Redis refused, each as `<id>: <reason>`. */
  static results(answer: unknown): FencedAppendResult[] {
    if (!Array.isArray(answer)) throw new Error(`a fenced append answered ${JSON.stringify(answer)}`);
    return answer.map((item: unknown) => (typeof item === "number" ? { fence: item } : { refused: Array.isArray(item) ? item.map(String) : [] }));
  }

  async raise(fence: string, generation: number): Promise<void> {
    await this.redis.cairnRaiseFence(fence, generation);
  }
}

/** The fenced append's keys and arguments (see FENCED_XADD); ioredis flattens the arrays into the command's arguments. */
function scriptCall(maxLen: number, appends: readonly FencedAppend[]): { keys: string[]; args: Array<string | number> } {
  const keys: string[] = [];
  const args: Array<string | number> = [maxLen];
  for (const { stream, fence, generation, entries } of appends) {
    keys.push(stream, fence);
    args.push(generation, entries.length);
    for (const { id, payload } of entries) args.push(id, payload);
  }
  return { keys, args };
}
