import { describe, expect, it } from "vitest";
import { HostPolicy, InvalidAllowedHostError, parseAllowedHosts } from "./host-policy.ts";

const ideHost = "cairn-0123456789abcdef.localhost";

describe("the host policy", () => {
  it("answers the bound address, localhost, the IDE's name and the administrator's names, whatever the port", () => {
    const policy = new HostPolicy({ boundHost: "127.0.0.1", port: 3000, ideHost, allowedHosts: parseAllowedHosts(["cairn.example.com", "lan-box:8443"]) });
    for (const host of [
      "127.0.0.1:3000",
      "127.0.0.1",
      "localhost:3000",
      "LOCALHOST:3000",
      "[::1]:3000",
      `${ideHost}:3000`,
      `${ideHost}.:3000`,
      "cairn.example.com",
      "lan-box:8443",
    ]) {
      expect({ host, allowed: policy.allowsHost(host) }).toEqual({ host, allowed: true });
    }
    for (const host of [
      undefined,
      "",
      "evil.example:3000",
      "127.0.0.1.evil.example",
      "cairn-ffffffffffffffff.localhost:3000",
      "other.localhost:3000",
      "192.168.1.2:3000",
      "localhost@evil.example",
      "a b",
      "example.com/x",
    ]) {
      expect({ host, allowed: policy.allowsHost(host) }).toEqual({ host, allowed: false });
    }
  });

  it("allows an Origin only for the server's own names at its port (an administrator's name at its port, or any)", () => {
    const policy = new HostPolicy({ boundHost: "127.0.0.1", port: 3000, ideHost, allowedHosts: parseAllowedHosts(["cairn.example.com", "lan-box:8443"]) });
    for (const origin of [
      "http://127.0.0.1:3000",
      `http://${ideHost}:3000`,
      "http://localhost:3000",
      "https://cairn.example.com",
      "https://cairn.example.com:444",
      "https://lan-box:8443",
    ]) {
      expect({ origin, allowed: policy.allowsOrigin(origin) }).toEqual({ origin, allowed: true });
    }
    for (const origin of [
      "null",
      "http://127.0.0.1:3001",
      `http://${ideHost}:5173`,
      "http://localhost:5173",
      "http://evil.example:3000",
      "https://lan-box:8444",
      "file://",
      "http://127.0.0.1:3000/path",
    ]) {
      expect({ origin, allowed: policy.allowsOrigin(origin) }).toEqual({ origin, allowed: false });
    }
  });

  it("on every interface, any IP literal is fine (no rebinding page has one) but names still need allowing", () => {
    const policy = new HostPolicy({ boundHost: "0.0.0.0", port: 3000, ideHost: undefined, allowedHosts: [] });
    expect(policy.allowsHost("192.168.1.2:3000")).toBe(true);
    expect(policy.allowsHost("[fe80::1]:3000")).toBe(true);
    expect(policy.allowsHost("localhost:3000")).toBe(true);
    expect(policy.allowsHost("box.lan:3000")).toBe(false);
    expect(policy.allowsOrigin("http://192.168.1.2:3000")).toBe(true);
    expect(policy.allowsOrigin("http://192.168.1.2:3001")).toBe(false);
  });

  it("refuses an --allowed-host entry that is not a host name", () => {
    for (const entry of ["", "http://x", "a/b", "a b"]) {
      expect(() => parseAllowedHosts([entry])).toThrow(InvalidAllowedHostError);
    }
  });
});
