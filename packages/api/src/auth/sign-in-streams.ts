import { setMaxListeners } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { BrowserSessionRepository } from "./browser-session-secrets.ts";

/** How often open streams re-check their browser's sign-in when no notice came (a missed notice, an expired sign-in). */
const DEFAULT_RECHECK_MS = 5_000;

/** Why a stream's signal was aborted (the signal's reason says, for a replaced access token). */
export const SIGNED_OUT_MESSAGE =
  "This browser was signed out (Sign out everywhere, or its sign-in expired): open the link the server printed to sign in again.";

type Browser = { controller: AbortController; open: number };
type SignInStreamsOptions = {
  sessions: Pick<BrowserSessionRepository, "check" | "onRevoked">;
  recheckMs?: number;
  /** Aborted once the access token is replaced (distributed mode): the streams opened with it (bearer) end then. */
  tokenReplaced?: AbortSignal;
};

/**
 * The streams (subscriptions) that signed-in browsers hold open on this node, by sign-in cookie, so that a
 * sign-out ends them instead of leaving them flowing until the browser reconnects. A sign out everywhere (here,
 * or on another node: the repository tells every node) re-checks each browser's sign-in at once, and while any
 * stream is open a timer re-checks them every `recheckMs`; a browser that is no longer signed in has the signal
 * of each of its streams aborted. One lookup per browser, not per stream; a lookup that fails keeps the streams.
 * Streams opened with the access token end the same way when the token is replaced (`tokenReplaced`).
 */
export class SignInStreams {
  private readonly options: SignInStreamsOptions;
  private readonly browsers = new Map<string, Browser>();
  private readonly streams = new WeakMap<IncomingMessage, AbortSignal>();
  private readonly stopListening: () => void;
  private timer: ReturnType<typeof setInterval> | undefined;
  private checking: Promise<void> | undefined;
  private checkAgain = false;

  constructor(options: SignInStreamsOptions) {
    this.options = options;
    // One signal for every stream opened with the token, each listening for its end: as many listeners as streams.
    if (options.tokenReplaced) setMaxListeners(0, options.tokenReplaced);
    this.stopListening = options.sessions.onRevoked(() => void this.recheck());
  }

  /** Follows a stream opened with the sign-in `cookie` until its response closes; its signal aborts once the browser is signed out. */
  watch(request: IncomingMessage, response: ServerResponse, cookie: string): AbortSignal {
    let browser = this.browsers.get(cookie);
    if (!browser) {
      browser = { controller: new AbortController(), open: 0 };
      // Shared by all of the browser's streams (its tabs), each with its listener: no limit that warns of a leak.
      setMaxListeners(0, browser.controller.signal);
      this.browsers.set(cookie, browser);
    }
    const held = browser;
    held.open++;
    response.once("close", () => {
      held.open--;
      if (held.open === 0 && this.browsers.get(cookie) === held) this.browsers.delete(cookie);
      if (this.browsers.size === 0) this.stopTimer();
    });
    this.streams.set(request, held.controller.signal);
    this.timer ??= setInterval(() => void this.recheck(), this.options.recheckMs ?? DEFAULT_RECHECK_MS);
    this.timer.unref();
    return held.controller.signal;
  }

  /**
   * Follows a stream opened with the access token (`Authorization: Bearer`) when the token can be replaced while the
   * node runs (distributed mode); its signal aborts then. Without that nothing is followed: the token lasts as long as the process.
   */
  watchBearer(request: IncomingMessage): void {
    if (this.options.tokenReplaced) this.streams.set(request, this.options.tokenReplaced);
  }

  /** The signal of a stream `watch` follows; undefined for any other request. */
  signalOf(request: IncomingMessage): AbortSignal | undefined {
    return this.streams.get(request);
  }

  /** Looks each browser with open streams up again; one pass at a time (a request meanwhile runs one more after it). */
  recheck(): Promise<void> {
    if (this.checking) {
      this.checkAgain = true;
      return this.checking;
    }
    this.checking = this.checkAll().finally(() => {
      this.checking = undefined;
      if (this.checkAgain) {
        this.checkAgain = false;
        void this.recheck();
      }
    });
    return this.checking;
  }

  close(): void {
    this.stopListening();
    this.stopTimer();
  }

  private async checkAll(): Promise<void> {
    await Promise.all(
      [...this.browsers].map(async ([cookie, browser]) => {
        const signedIn = await this.options.sessions.check(cookie, undefined).then(
          (check) => check.kind === "valid",
          () => true,
        );
        if (signedIn) return;
        if (this.browsers.get(cookie) === browser) this.browsers.delete(cookie);
        browser.controller.abort(new Error(SIGNED_OUT_MESSAGE));
      }),
    );
    if (this.browsers.size === 0) this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
