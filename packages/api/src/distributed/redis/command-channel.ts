import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import { sessionCommandSchema, type SessionCommand } from "../../hub/session-ownership.ts";
import { apiErrorCodes, ApiError, type ApiErrorCode } from "../../router/errors.ts";

/** Why a command did not reach its owner: nobody listens on its channel, or no answer came in time. */
export class OwnerUnreachableError extends Error {
  override readonly name = "OwnerUnreachableError";
  readonly code = "owner_unreachable";
}

const requestSchema = z.object({ id: z.string(), from: z.string(), command: sessionCommandSchema });
const replySchema = z.discriminatedUnion("ok", [
  z.object({ id: z.string(), ok: z.literal(true), value: z.unknown() }),
  z.object({ id: z.string(), ok: z.literal(false), code: z.string(), message: z.string() }),
]);
type Reply = z.infer<typeof replySchema>;

export type CommandChannelOptions = {
  /** The command connection (PUBLISH); the channel makes its own subscriber connection from it. */
  redis: Redis;
  nodeId: string;
  /** Runs a command sent to this node; what it returns (JSON) or throws goes back to the sender. */
  handle: (command: SessionCommand) => Promise<unknown>;
  /** How long a sender waits for the answer (ms). Default 3,000. */
  timeoutMs?: number;
  prefix?: string;
  onError?: (error: Error, context: string) => void;
};

/**
 * Per-node command channels over Redis pub/sub: a command for a session goes to
 * `<prefix><owner>:commands` with a correlation id, and the owner publishes the answer to
 * `<prefix><sender>:replies`. Pub/sub rather than a stream because a command is only worth running
 * while its sender waits: PUBLISH says at once how many nodes listen (0: the owner is gone), and an
 * answer that does not come in time means the owner is stalled; in both cases the sender falls back
 * to the lease (wait for it to lapse, then take the session over). Nothing is queued for a dead node.
 */
export class RedisCommandChannel {
  private readonly options: CommandChannelOptions;
  private readonly subscriber: Redis;
  private readonly prefix: string;
  private readonly waiting = new Map<string, { resolve: (reply: Reply) => void; timer: ReturnType<typeof setTimeout> }>();
  private closed = false;

  constructor(options: CommandChannelOptions) {
    this.options = options;
    this.prefix = options.prefix ?? "cairn:node:";
    this.subscriber = options.redis.duplicate();
    this.subscriber.on("error", (error: Error) => this.options.onError?.(error, "command channel connection"));
    this.subscriber.on("message", (channel: string, text: string) => void this.receive(channel, text));
  }

  /** Subscribes to this node's command and reply channels (ioredis subscribes again after a reconnect). */
  async start(): Promise<void> {
    await this.subscriber.subscribe(this.commandsOf(this.options.nodeId), this.repliesOf(this.options.nodeId));
  }

  /** Sends `command` to node `owner` and waits for its answer; an error the owner raised is thrown here with its code. */
  async call(owner: string, command: SessionCommand): Promise<unknown> {
    const id = randomUUID();
    const reply = new Promise<Reply>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve({ id, ok: false, code: "owner_unreachable", message: `Node ${owner} did not answer within ${this.timeoutMs} ms` });
      }, this.timeoutMs);
      this.waiting.set(id, { resolve, timer });
    });
    const listeners = await this.options.redis
      .publish(this.commandsOf(owner), JSON.stringify({ id, from: this.options.nodeId, command }))
      .catch((error: unknown) => {
        this.settle({ id, ok: false, code: "owner_unreachable", message: `Redis: ${(error as Error).message}` });
        return 1;
      });
    if (listeners === 0) this.settle({ id, ok: false, code: "owner_unreachable", message: `Node ${owner} is not listening` });
    const answer = await reply;
    if (answer.ok) return answer.value;
    if (answer.code === "owner_unreachable") throw new OwnerUnreachableError(answer.message);
    // An error the owner raised keeps its code when it is one of the API's (others become plain errors).
    if ((apiErrorCodes as readonly string[]).includes(answer.code)) throw new ApiError(answer.code as ApiErrorCode, answer.message);
    throw new Error(answer.message);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const [id] of this.waiting) this.settle({ id, ok: false, code: "owner_unreachable", message: "This node is shutting down" });
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? 3_000;
  }

  private async receive(channel: string, text: string): Promise<void> {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      this.options.onError?.(new Error("a message that is not JSON"), channel);
      return;
    }
    if (channel === this.repliesOf(this.options.nodeId)) {
      const reply = replySchema.safeParse(data);
      if (reply.success) this.settle(reply.data);
      else this.options.onError?.(new Error(`an invalid reply: ${reply.error.issues[0]?.message}`), channel);
      return;
    }
    const request = requestSchema.safeParse(data);
    if (!request.success) {
      this.options.onError?.(new Error(`an invalid command: ${request.error.issues[0]?.message}`), channel);
      return;
    }
    if (this.closed) return;
    const { id, from, command } = request.data;
    let reply: Reply;
    try {
      reply = { id, ok: true, value: (await this.options.handle(command)) ?? null };
    } catch (error) {
      const code = error instanceof ApiError ? error.code : error instanceof OwnerUnreachableError ? error.code : "internal_error";
      reply = { id, ok: false, code, message: (error as Error).message };
    }
    await this.options.redis.publish(this.repliesOf(from), JSON.stringify(reply)).catch((error: unknown) => this.options.onError?.(error as Error, "reply"));
  }

  private settle(reply: Reply): void {
    const entry = this.waiting.get(reply.id);
    if (!entry) return;
    this.waiting.delete(reply.id);
    clearTimeout(entry.timer);
    entry.resolve(reply);
  }

  private commandsOf(nodeId: string): string {
    return `${this.prefix}${nodeId}:commands`;
  }

  private repliesOf(nodeId: string): string {
    return `${this.prefix}${nodeId}:replies`;
  }
}
