import type { TokenBucketLimiter } from "./rate-limiter.ts";

/** How many live-share streams may be open at once (`CAIRN_SHARE_STREAMS=perClient/perShare/total`). */
export type StreamLimits = { perClient: number; perShare: number; total: number };

export const DEFAULT_STREAM_LIMITS: StreamLimits = { perClient: 4, perShare: 20, total: 100 };

export type StreamAdmission = { kind: "admitted"; release: () => void } | { kind: "refused"; reason: string };

/**
 * Admission for live-share streams: at most `perClient` open per client (address, IPv6 /64), `perShare` per
 * share and `total` in all, and every open takes a token from the client's bucket, so opening and closing
 * in a loop is limited too. A stream holds its place until `release` (called once, when the response closes).
 */
export class ShareStreamGate {
  private readonly limits: StreamLimits;
  private readonly opens: TokenBucketLimiter;
  private readonly byClient = new Map<string, number>();
  private readonly byShare = new Map<string, number>();
  private open = 0;

  constructor(options: { limits: StreamLimits; opens: TokenBucketLimiter }) {
    this.limits = options.limits;
    this.opens = options.opens;
  }

  admit(client: string, shareId: string): StreamAdmission {
    if (!this.opens.allowed(client)) return { kind: "refused", reason: "Too many share streams opened from this address; try again in a minute." };
    this.opens.take(client);
    if ((this.byClient.get(client) ?? 0) >= this.limits.perClient)
      return { kind: "refused", reason: `At most ${this.limits.perClient} live share streams per address are open at once.` };
    if ((this.byShare.get(shareId) ?? 0) >= this.limits.perShare)
      return { kind: "refused", reason: `This share already has ${this.limits.perShare} viewers streaming; try again later.` };
    if (this.open >= this.limits.total) return { kind: "refused", reason: "The server is streaming to as many share viewers as it allows; try again later." };
    adjust(this.byClient, client, 1);
    adjust(this.byShare, shareId, 1);
    this.open++;
    let released = false;
    return {
      kind: "admitted",
      release: () => {
        if (released) return;
        released = true;
        adjust(this.byClient, client, -1);
        adjust(this.byShare, shareId, -1);
        this.open--;
      },
    };
  }

  openCount(): number {
    return this.open;
  }
}

function adjust(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
