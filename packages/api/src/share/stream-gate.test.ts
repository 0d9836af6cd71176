import { describe, expect, it } from "vitest";
import { TokenBucketLimiter } from "./rate-limiter.ts";
import { ShareStreamGate } from "./stream-gate.ts";

const gateWith = (limits: { perClient: number; perShare: number; total: number }, capacity = 1_000) =>
  new ShareStreamGate({ limits, opens: new TokenBucketLimiter({ capacity, refillPerMinute: capacity, now: () => 0 }) });

describe("the share stream gate", () => {
  it("caps open streams per client, per share and in total, and gives places back on release", () => {
    const gate = gateWith({ perClient: 2, perShare: 3, total: 4 });
    const a1 = gate.admit("a", "s1");
    const a2 = gate.admit("a", "s1");
    expect([a1.kind, a2.kind]).toEqual(["admitted", "admitted"]);
    expect(gate.admit("a", "s2")).toMatchObject({ kind: "refused", reason: expect.stringContaining("per address") });
    expect(gate.admit("b", "s1").kind).toBe("admitted");
    expect(gate.admit("c", "s1")).toMatchObject({ kind: "refused", reason: expect.stringContaining("viewers") });
    expect(gate.admit("c", "s2").kind).toBe("admitted");
    expect(gate.admit("d", "s3")).toMatchObject({ kind: "refused", reason: expect.stringContaining("as many share viewers") });
    expect(gate.openCount()).toBe(4);
    if (a1.kind === "admitted") {
      a1.release();
      a1.release();
    }
    expect(gate.openCount()).toBe(3);
    expect(gate.admit("d", "s3").kind).toBe("admitted");
  });

  it("charges every open to the client's bucket, so open-close loops run dry", () => {
    const gate = gateWith({ perClient: 4, perShare: 20, total: 100 }, 3);
    for (let index = 0; index < 3; index++) {
      const admission = gate.admit("a", "s1");
      expect(admission.kind).toBe("admitted");
      if (admission.kind === "admitted") admission.release();
    }
    expect(gate.admit("a", "s1")).toMatchObject({ kind: "refused", reason: expect.stringContaining("opened from this address") });
    expect(gate.admit("b", "s1").kind).toBe("admitted");
  });
});
