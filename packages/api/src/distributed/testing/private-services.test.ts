import { Redis } from "ioredis";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivatePostgres, startPrivateRedis, type PrivateService } from "./private-services.ts";

describe("private Redis", () => {
  let redis: PrivateService;
  beforeAll(async () => {
    redis = await startPrivateRedis({ persistent: true });
  });
  afterAll(() => redis.stop());

  it("answers on its own port and keeps appended data across a restart", async () => {
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await client.connect();
    try {
      const id = await client.xadd("stream:harness", "1-0", "k", "v");
      expect(id).toBe("1-0");
    } finally {
      client.disconnect();
    }
    await redis.restart();
    const after = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await after.connect();
    try {
      expect(await after.xlen("stream:harness")).toBe(1);
    } finally {
      after.disconnect();
    }
  });
});

describe("private PostgreSQL", () => {
  let database: PrivateService;
  beforeAll(async () => {
    database = await startPrivatePostgres();
  }, 90_000);
  afterAll(() => database.stop());

  it("accepts the cairn role on its own port and keeps tables across a restart", async () => {
    expect(database.url).toBe(`postgres://cairn@127.0.0.1:${database.port}/postgres`);
    const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
    await sql`create table harness (value text)`;
    await sql`insert into harness values ('kept')`;
    await sql.end();
    await database.restart();
    const again = postgres(database.url, { max: 1 });
    try {
      const rows = await again<{ value: string }[]>`select value from harness`;
      expect(rows.map((row) => row.value)).toEqual(["kept"]);
    } finally {
      await again.end();
    }
  }, 90_000);
});
