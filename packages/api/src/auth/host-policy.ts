import { isIP } from "node:net";
import { isLoopbackHost } from "./access-token.ts";

type HostPolicyOptions = {
  /** The address the server listens on (`127.0.0.1`, `::1`, `0.0.0.0`, a LAN address, …). */
  boundHost: string;
  port: number;
  /** The IDE's own `cairn-<random>.localhost` name, when there is one. */
  ideHost: string | undefined;
  /** Names the administrator allows (`--allowed-host`, `CAIRN_ALLOWED_HOSTS`), from `parseAllowedHosts`. */
  allowedHosts: readonly AllowedHost[];
};

/** An allowed name; `port` undefined means any port. */
export type AllowedHost = { hostname: string; port: string | undefined };

export class InvalidAllowedHostError extends Error {
  override readonly name = "InvalidAllowedHostError";
  readonly code = "invalid_allowed_host";
}

/** `name` (any port) or `name:port` entries; a clear error for anything else. */
export function parseAllowedHosts(entries: readonly string[]): AllowedHost[] {
  return entries.map((entry) => {
    const parsed = parseHostPort(entry.trim());
    if (parsed === undefined || parsed.hostname === "") throw new InvalidAllowedHostError(`--allowed-host "${entry}" is not a host name (name or name:port)`);
    return { hostname: parsed.hostname, port: parsed.port === "" ? undefined : parsed.port };
  });
}

/**
 * Which `Host` and `Origin` values the server answers. A DNS-rebinding page reaches the server under its own
 * name, so any name not on this list is refused, on every route: the bound address, `localhost`, the IDE's
 * own name, the administrator's names, and (when the server listens on every interface) any IP literal,
 * which no rebinding page can have. An Origin must name one of these at the server's port (an
 * administrator's name: at the port given, or any); it is never compared with the request's own Host,
 * which a rebinding page controls.
 */
export class HostPolicy {
  private readonly names: AllowedHost[];
  private readonly port: string;
  private readonly anyIpLiteral: boolean;

  constructor(options: HostPolicyOptions) {
    this.port = String(options.port);
    const own = [
      options.boundHost,
      "localhost",
      ...(isLoopbackHost(options.boundHost) ? ["127.0.0.1", "::1"] : []),
      ...(options.ideHost ? [options.ideHost] : []),
    ];
    this.names = [...own.map((name) => ({ hostname: normalHostname(name), port: this.port })), ...options.allowedHosts];
    this.anyIpLiteral = options.boundHost === "0.0.0.0" || options.boundHost === "::" || options.boundHost === "[::]";
  }

  /** Whether a request's `Host` header names this server (its port is not checked: a proxy may change it). */
  allowsHost(header: string | undefined): boolean {
    const parsed = header === undefined ? undefined : parseHostPort(header);
    if (parsed === undefined) return false;
    return this.names.some((name) => name.hostname === parsed.hostname) || (this.anyIpLiteral && isIpLiteral(parsed.hostname));
  }

  /** Whether an `Origin` header is one of this server's own origins. */
  allowsOrigin(origin: string): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== origin.replace(/\/$/, "")) return false;
    const hostname = normalHostname(url.hostname);
    const port = url.port === "" ? (url.protocol === "https:" ? "443" : "80") : url.port;
    if (this.anyIpLiteral && isIpLiteral(hostname) && port === this.port) return true;
    return this.names.some((name) => name.hostname === hostname && (name.port === undefined || name.port === port));
  }
}

/** `name`, `name:port`, `[v6]:port`, as in a Host header; undefined when it is anything else. */
function parseHostPort(value: string): { hostname: string; port: string } | undefined {
  if (value === "" || /[\s/?#@\\]/.test(value)) return undefined;
  // A bare IPv6 address (an --allowed-host entry) has no brackets.
  const bracketed = isIP(value) === 6 ? `[${value}]` : value;
  try {
    const url = new URL(`http://${bracketed}`);
    return { hostname: normalHostname(url.hostname), port: url.port };
  } catch {
    return undefined;
  }
}

/** Lower case, no trailing dot, IPv6 without brackets. */
function normalHostname(hostname: string): string {
  const lower = hostname.toLowerCase().replace(/\.$/, "");
  return lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
}

function isIpLiteral(hostname: string): boolean {
  return isIP(hostname) !== 0;
}
