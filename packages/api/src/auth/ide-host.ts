import { randomBytes } from "node:crypto";
import type { BrowserSessionStore } from "./browser-sessions.ts";

/**
 * The IDE's own host name, `cairn-<16 hex>.localhost`: browsers resolve every `*.localhost` name to loopback,
 * and a host-only cookie set there is never sent to `127.0.0.1`, `localhost` or another `*.localhost` name.
 * Random, so another local service cannot guess it; kept in the auth database, so it survives a restart.
 */
export function ideHostName(store: Pick<BrowserSessionStore, "stableName">): string {
  return store.stableName("ide_host", () => `cairn-${randomBytes(8).toString("hex")}.localhost`);
}
