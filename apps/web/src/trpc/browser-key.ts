/**
 * The browser key: the half of a sign-in that never travels as a cookie. The login redirect hands it over in the
 * URL fragment (never sent to a server); it is kept in this origin's localStorage, which is separate for every
 * scheme, host and port, and sent with every API request. A cookie leaking to another port of the same host is
 * useless without it.
 */
const STORAGE_KEY = "cairn:browser-key";
const FRAGMENT = /^#cairn-key=([A-Za-z0-9_-]{16,200})$/;

const BROWSER_KEY_HEADER = "x-cairn-key";

/** The key, taken from the address bar first if the login redirect just put it there (and removed from it). */
export function browserKey(): string | undefined {
  if (typeof window === "undefined") return undefined;
  const fresh = FRAGMENT.exec(window.location.hash)?.[1];
  if (fresh !== undefined) {
    window.localStorage.setItem(STORAGE_KEY, fresh);
    window.history.replaceState(window.history.state, "", `${window.location.pathname}${window.location.search}`);
    return fresh;
  }
  return window.localStorage.getItem(STORAGE_KEY) ?? undefined;
}

export function forgetBrowserKey(): void {
  window.localStorage.removeItem(STORAGE_KEY);
}

/** Headers for a request to the main router. */
export function browserKeyHeaders(): Record<string, string> {
  const key = browserKey();
  return key === undefined ? {} : { [BROWSER_KEY_HEADER]: key };
}
