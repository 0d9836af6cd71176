import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it, vi } from "vitest";
import type { BrowserSessionCheck } from "./browser-session-secrets.ts";
import { SIGNED_OUT_MESSAGE, SignInStreams } from "./sign-in-streams.ts";

/** Sign-ins by cookie, with the lookups counted and a revoke listener the test fires. */
function fakeSignIns(signedIn: Set<string>) {
  const listeners = new Set<() => void>();
  const lookups: string[] = [];
  let failing = false;
  return {
    lookups,
    fail: (value: boolean) => {
      failing = value;
    },
    revoked: () => {
      for (const listener of listeners) listener();
    },
    sessions: {
      check: async (cookie: string): Promise<BrowserSessionCheck> => {
        lookups.push(cookie);
        if (failing) throw new Error("database away");
        return signedIn.has(cookie) ? { kind: "valid", sessionId: cookie, expiresAt: 0 } : { kind: "unknown" };
      },
      onRevoked: (listener: () => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
  };
}

const stream = () => ({ request: new EventEmitter() as unknown as IncomingMessage, response: new EventEmitter() as unknown as ServerResponse });

describe("SignInStreams", () => {
  it("aborts the streams of a browser signed out when told, one lookup per browser, and keeps the others", async () => {
    const signedIn = new Set(["alice", "bob"]);
    const signIns = fakeSignIns(signedIn);
    const streams = new SignInStreams({ sessions: signIns.sessions });
    const [first, second, third] = [stream(), stream(), stream()];
    const aliceSignal = streams.watch(first.request, first.response, "alice");
    streams.watch(second.request, second.response, "alice");
    const bobSignal = streams.watch(third.request, third.response, "bob");
    expect(streams.signalOf(second.request)).toBe(aliceSignal);
    expect(streams.signalOf(stream().request)).toBeUndefined();
    signedIn.delete("alice");
    signIns.revoked();
    await vi.waitFor(() => expect(aliceSignal.aborted).toBe(true));
    expect((aliceSignal.reason as Error).message).toBe(SIGNED_OUT_MESSAGE);
    expect(bobSignal.aborted).toBe(false);
    expect(signIns.lookups.sort()).toEqual(["alice", "bob"]);
    streams.close();
  });

  it("re-checks on a timer while streams are open (a missed notice, an expiry); a failed lookup keeps the stream; closed streams are forgotten", async () => {
    const signedIn = new Set(["carol"]);
    const signIns = fakeSignIns(signedIn);
    const streams = new SignInStreams({ sessions: signIns.sessions, recheckMs: 20 });
    const open = stream();
    const signal = streams.watch(open.request, open.response, "carol");
    await vi.waitFor(() => expect(signIns.lookups.length).toBeGreaterThanOrEqual(2));
    signIns.fail(true);
    signedIn.delete("carol");
    const failedFrom = signIns.lookups.length;
    await vi.waitFor(() => expect(signIns.lookups.length).toBeGreaterThan(failedFrom + 1));
    expect(signal.aborted).toBe(false);
    signIns.fail(false);
    await vi.waitFor(() => expect(signal.aborted).toBe(true));
    // A closed stream is no longer looked up (the timer stops with the last one).
    const later = stream();
    streams.watch(later.request, later.response, "dave");
    (later.response as unknown as EventEmitter).emit("close");
    const count = signIns.lookups.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(signIns.lookups.length).toBe(count);
    streams.close();
  });

  it("lets any number of streams follow one browser's sign-in or the access token without a listener-leak warning", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      const replaced = new AbortController();
      const streams = new SignInStreams({ sessions: fakeSignIns(new Set(["alice"])).sessions, tokenReplaced: replaced.signal });
      // A browser with many tabs open, and as many scripts on the access token: each stream listens for its end.
      for (let index = 0; index < 25; index++) {
        const browserStream = stream();
        streams.watch(browserStream.request, browserStream.response, "alice").addEventListener("abort", () => undefined);
        const bearerStream = stream();
        streams.watchBearer(bearerStream.request);
        streams.signalOf(bearerStream.request)!.addEventListener("abort", () => undefined);
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
      streams.close();
    } finally {
      process.off("warning", onWarning);
    }
  });
});
