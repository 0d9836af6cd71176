import { describe, expect, it } from "vitest";
import { TokenBucketLimiter } from "./rate-limiter.ts";

describe("the token bucket limiter", () => {
  it("allows 30 failures a minute per client, then refuses until the bucket refills", () => {
    let now = 0;
    const limiter = new TokenBucketLimiter({ now: () => now });
    for (let index = 0; index < 30; index++) {
      expect(limiter.allowed("1.2.3.4")).toBe(true);
      limiter.take("1.2.3.4");
    }
    expect(limiter.allowed("1.2.3.4")).toBe(false);
    expect(limiter.allowed("5.6.7.8")).toBe(true);
    now += 1_999;
    expect(limiter.allowed("1.2.3.4")).toBe(false);
    now += 1;
    expect(limiter.allowed("1.2.3.4")).toBe(true);
    now += 60_000;
    for (let index = 0; index < 30; index++) limiter.take("1.2.3.4");
    expect(limiter.allowed("1.2.3.4")).toBe(false);
  });

  it("keeps at most maxClients buckets", () => {
    const limiter = new TokenBucketLimiter({ capacity: 1, maxClients: 2, now: () => 0 });
    limiter.take("a");
    limiter.take("b");
    limiter.take("c");
    expect(limiter.allowed("a")).toBe(true);
    expect(limiter.allowed("b")).toBe(false);
    expect(limiter.allowed("c")).toBe(false);
  });
});
