import type { ModelError } from "./port.ts";

export type RetryPolicy = {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest `retry-after` honoured; a longer one fails fast instead of hanging the session. */
  maxRetryAfterMs: number;
  /** Consecutive overloaded (529) errors before switching to the fallback model. */
  overloadedBeforeFallback: number;
};

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 10,
  baseDelayMs: 500,
  maxDelayMs: 32_000,
  maxRetryAfterMs: 120_000,
  overloadedBeforeFallback: 3,
};

export function isRetryable(error: ModelError): boolean {
  switch (error.code) {
    case "overloaded":
    case "rate_limited":
    case "server_error":
    case "connection":
    case "timeout":
      return true;
    case "stream_error":
      // An `error` event mid-stream carries no status; only API-side failures are worth another try.
      return error.status === null;
    default:
      return false;
  }
}

/** Exponential backoff with up to 25 % jitter; a server's `retry-after` wins when it is given. */
export function retryDelayMs(attempt: number, error: ModelError, policy: RetryPolicy, random: () => number): number {
  if (error.retryAfterMs !== null && error.retryAfterMs <= policy.maxRetryAfterMs) return Math.max(0, error.retryAfterMs);
  const base = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  return Math.round(base + base * 0.25 * random());
}
