import { isIPv6 } from "node:net";

/**
 * Whom a rate limit or a stream cap counts: the connecting address, an IPv6 address by its /64 (one host
 * usually holds the whole /64, so per-address buckets would be free to multiply). IPv4-mapped IPv6
 * addresses count as the IPv4 address.
 */
export function clientKey(address: string | undefined): string {
  if (address === undefined || address === "") return "unknown";
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(":")}::/64`;
}

/** The eight groups of an IPv6 address, each without leading zeros (zone index dropped). */
function expandIPv6(address: string): string[] {
  const bare = address.split("%")[0]!.toLowerCase();
  const [head = "", tail] = bare.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  // An embedded IPv4 tail (::1.2.3.4 forms) stands for two groups.
  const toGroups = (groups: string[]) =>
    groups.flatMap((group) => {
      if (!group.includes(".")) return [group];
      const [a = 0, b = 0, c = 0, d = 0] = group.split(".").map(Number);
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  const left = toGroups(headGroups);
  const right = toGroups(tailGroups);
  const middle = tail === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => "0");
  return [...left, ...middle, ...right].map((group) => Number.parseInt(group, 16).toString(16));
}
