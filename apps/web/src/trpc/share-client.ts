import { createTRPCClient, httpLink } from "@trpc/client";
import type { AppRouter } from "@cairn/api/router";
import type { ShareViewRouter } from "@cairn/api/share-router";
import { browserKeyHeaders } from "./browser-key.ts";
import { browserLinks } from "./links.ts";

/**
 * The read-only share router, on its own prefix: it needs no access cookie (the token in the page's address
 * is the capability), so a shared page reaches nothing else of the server.
 */
const SHARE_URL = "/api/share";

export function createShareViewClient() {
  return createTRPCClient<ShareViewRouter>({ links: browserLinks(SHARE_URL, { signedIn: false }) });
}

export type ShareViewClient = ReturnType<typeof createShareViewClient>;

/** The server refused the main router because this browser has no access cookie for it. */
export class NotSignedInError extends Error {
  override readonly name = "NotSignedInError";
  readonly code = "not_signed_in";
  constructor() {
    super("This browser is not signed in to this Cairn server.");
  }
}

/**
 * The main router as a shared page may use it: only for "Continue as copy", on a click. The access guard
 * answers 401 in plain text, which tRPC's JSON links cannot read; it becomes a `NotSignedInError` instead.
 */
export function createSignedInClient(url = "/api/trpc") {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url,
        headers: browserKeyHeaders,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          if (response.status === 401) throw new NotSignedInError();
          return response;
        },
      }),
    ],
  });
}

/** Whether a failed call failed because the browser is not signed in (the error, or the tRPC error it caused). */
export function isNotSignedIn(error: unknown): boolean {
  if (error instanceof NotSignedInError) return true;
  const cause = typeof error === "object" && error !== null ? (error as { cause?: unknown }).cause : undefined;
  if (cause instanceof NotSignedInError) return true;
  const data = typeof error === "object" && error !== null ? (error as { data?: { code?: unknown } | null }).data : undefined;
  return data?.code === "UNAUTHORIZED";
}
