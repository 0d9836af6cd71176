import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { streamEvents } from "../../hub/event-stream.ts";
import type { SequencedEvent } from "../../router/context.ts";
import type { SessionEvent } from "../../router/types.ts";
import { startPrivateRedis, type PrivateService } from "../testing/private-services.ts";
import { RedisEventBus, type RedisEventBusOptions } from "./redis-event-bus.ts";

/** Nodes of one test file on one private redis-server. */
export type RedisNodes = {
  /** A node's event bus, on a connection of its own. */
  node(options?: Omit<RedisEventBusOptions, "redis">): RedisEventBus;
  /** A connection of the test's own, to look at the streams. */
  inspector(): Redis;
  /** How many nodes were made so far. */
  count(): number;
  /** A node's command connection (the one it appends with). */
  connectionOf(bus: RedisEventBus): Redis;
};

/** For a test file, called at its top level: a private redis-server for its tests, and every node closed after the last. */
export function useRedisNodes(): RedisNodes {
  let redis: PrivateService | undefined;
  let inspector: Redis | undefined;
  const clients: Redis[] = [];
  const buses: RedisEventBus[] = [];
  const connections = new Map<RedisEventBus, Redis>();
  const started = () => {
    if (!redis) throw new Error("the private redis-server starts in beforeAll: make nodes inside a test");
    return redis;
  };
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    for (const bus of buses) await bus.close();
    for (const client of clients) client.disconnect();
    inspector?.disconnect();
    await redis?.stop();
  });
  return {
    node(options = {}) {
      const client = new Redis(started().url, { maxRetriesPerRequest: null });
      clients.push(client);
      const bus = new RedisEventBus({ redis: client, ...options });
      buses.push(bus);
      connections.set(bus, client);
      return bus;
    },
    inspector() {
      inspector ??= new Redis(started().url, { maxRetriesPerRequest: null });
      return inspector;
    },
    count: () => buses.length,
    connectionOf(bus) {
      const connection = connections.get(bus);
      if (!connection) throw new Error("not a node of this file");
      return connection;
    },
  };
}

/** A tab: reads a session's events from one node from `afterSeq` until stopped, recording each (seq, event). */
export function followBus(bus: RedisEventBus, sessionId: string, afterSeq: number, snapshot: SessionEvent[]) {
  const controller = new AbortController();
  const received: SequencedEvent[] = [];
  const done = (async () => {
    for await (const item of streamEvents({ bus, sessionId, afterSeq, signal: controller.signal, backfill: async () => snapshot })) received.push(item);
  })();
  return {
    received,
    lastSeq: () => received.at(-1)?.seq ?? afterSeq,
    async stop() {
      controller.abort();
      await done;
    },
  };
}
