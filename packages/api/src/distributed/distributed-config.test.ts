import { describe, expect, it } from "vitest";
import { DistributedConfigError, redactUrl, resolveDistributedConfig, splitWorkerUrls } from "./distributed-config.ts";

const defaultNodeId = () => "host-a-123";

describe("resolveDistributedConfig", () => {
  it("is undefined when nothing distributed is configured, so the embedded default stays as it is", () => {
    expect(resolveDistributedConfig({}, {}, defaultNodeId)).toBeUndefined();
    expect(resolveDistributedConfig({ nodeId: "node-a" }, { redisUrl: "  " }, defaultNodeId)).toBeUndefined();
  });

  it("takes flags over the environment and defaults the node id", () => {
    const config = resolveDistributedConfig(
      { redisUrl: "redis://flag:6379" },
      { redisUrl: "redis://env:6379", databaseUrl: "postgres://cairn@db:5432/cairn", workerUrls: ["ws://w1:7000, wss://w2:7000"] },
      defaultNodeId,
    );
    expect(config).toEqual({
      redisUrl: "redis://flag:6379",
      databaseUrl: "postgres://cairn@db:5432/cairn",
      workerUrls: ["ws://w1:7000", "wss://w2:7000"],
      nodeId: "host-a-123",
      warmUp: true,
    });
  });

  it("warms the node up unless told off (flag over environment)", () => {
    const redis = { redisUrl: "redis://cache:6379" };
    expect(resolveDistributedConfig(redis, { warmUp: "off" }, defaultNodeId)?.warmUp).toBe(false);
    expect(resolveDistributedConfig({ ...redis, warmUp: "on" }, { warmUp: "off" }, defaultNodeId)?.warmUp).toBe(true);
    expect(resolveDistributedConfig({ ...redis, warmUp: "FALSE" }, {}, defaultNodeId)?.warmUp).toBe(false);
    expect(resolveDistributedConfig({ ...redis, warmUp: " " }, { warmUp: "0" }, defaultNodeId)?.warmUp).toBe(false);
    // Refused even when running embedded (where it changes nothing), as a bad node id is.
    expect(() => resolveDistributedConfig({}, { warmUp: "later" }, defaultNodeId)).toThrow(/--warm-up \/ CAIRN_WARM_UP/);
    expect(() => resolveDistributedConfig({ ...redis, warmUp: "sometimes" }, {}, defaultNodeId)).toThrow(
      /--warm-up \/ CAIRN_WARM_UP: must be on or off \(got "sometimes"\)/,
    );
  });

  it("takes repeated --worker-url flags (each maybe a list) instead of the environment's", () => {
    const config = resolveDistributedConfig({ workerUrls: ["ws://a:1", "ws://b:2,ws://a:1"], nodeId: "api-1" }, { workerUrls: ["ws://env:3"] }, defaultNodeId);
    expect(config?.workerUrls).toEqual(["ws://a:1", "ws://b:2"]);
    expect(config?.nodeId).toBe("api-1");
  });

  it.each([
    [{ redisUrl: "http://cache:6379" }, /--redis-url \/ CAIRN_REDIS_URL: the Redis URL must be a redis:\/\/ or rediss:\/\/ URL/],
    [{ databaseUrl: "mysql://db" }, /--database-url \/ CAIRN_DATABASE_URL: the database URL must be a postgres:\/\/ or postgresql:\/\//],
    [{ workerUrls: ["tcp://w:1"] }, /--worker-url \/ CAIRN_WORKER_URL: a worker URL must be a ws:\/\/ or wss:\/\//],
    [{ redisUrl: "redis://cache", nodeId: "bad id!" }, /--node-id \/ CAIRN_NODE_ID: the node id may hold/],
    [{ redisUrl: "not a url" }, /--redis-url/],
  ])("refuses %j with the setting's name", (settings, message) => {
    expect(() => resolveDistributedConfig(settings, {}, defaultNodeId)).toThrow(DistributedConfigError);
    expect(() => resolveDistributedConfig(settings, {}, defaultNodeId)).toThrow(message);
  });

  it("never echoes a password in its error", () => {
    let message = "";
    try {
      resolveDistributedConfig({ databaseUrl: "mysql://cairn:hunter2@db/cairn" }, {}, defaultNodeId);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("mysql://cairn:***@db/cairn");
    expect(message).not.toContain("hunter2");
  });
});

describe("splitWorkerUrls / redactUrl", () => {
  it("splits lists and drops blanks and repeats", () => {
    expect(splitWorkerUrls(["ws://a:1,,ws://b:2", " ws://a:1 "])).toEqual(["ws://a:1", "ws://b:2"]);
  });

  it("hides the password only", () => {
    expect(redactUrl("postgres://user:secret@db:5432/x")).toBe("postgres://user:***@db:5432/x");
    expect(redactUrl("redis://cache:6379")).toBe("redis://cache:6379");
    expect(redactUrl("::")).toBe("(invalid URL)");
  });
});
