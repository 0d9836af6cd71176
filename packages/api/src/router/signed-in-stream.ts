import { TRPCError } from "@trpc/server";
import { SIGNED_OUT_MESSAGE } from "../auth/sign-in-streams.ts";
import type { ApiContext } from "./context.ts";

const neverAborted = new AbortController().signal;

/**
 * A subscription's values, read from `open` with a signal that aborts when the client goes away or, for a stream a
 * signed-in browser opened (`ctx.signedOut`), when that browser is signed out; the stream then ends with
 * UNAUTHORIZED, which the IDE shows and tRPC's client does not retry.
 */
export async function* whileSignedIn<T>(
  ctx: Pick<ApiContext, "signedOut">,
  signal: AbortSignal | undefined,
  open: (signal: AbortSignal) => AsyncIterable<T>,
): AsyncGenerator<T> {
  const request = signal ?? neverAborted;
  const signedOut = ctx.signedOut;
  if (!signedOut) {
    yield* open(request);
    return;
  }
  try {
    yield* open(AbortSignal.any([request, signedOut]));
  } catch (error) {
    if (!signedOut.aborted) throw error;
  }
  if (signedOut.aborted && !request.aborted) throw signedOutError(signedOut);
}

/** What a stream of a browser signed out (or opened with an access token replaced) since it opened ends with: the signal's reason. */
export function signedOutError(signedOut: AbortSignal): TRPCError {
  const reason: unknown = signedOut.reason;
  return new TRPCError({ code: "UNAUTHORIZED", message: reason instanceof Error ? reason.message : SIGNED_OUT_MESSAGE });
}
