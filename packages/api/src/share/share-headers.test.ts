import { createServer, request, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { pinHeaders, sharePageCsp, shareRouteOf } from "./share-headers.ts";

describe("share routes", () => {
  it("recognises share pages, the share API and page assets only in normal form", () => {
    expect(shareRouteOf("/share/cairn_shr_abc")).toBe("page");
    expect(shareRouteOf("/share/cairn_shr_abc?x=1")).toBe("page");
    expect(shareRouteOf("/api/share/view.session?input=%7B%7D")).toBe("api");
    expect(shareRouteOf("/_next/static/chunks/main.js")).toBe("asset");
    expect(shareRouteOf("/favicon.ico")).toBe("asset");
    for (const path of [
      "/",
      "/shares",
      "/share",
      "/api/trpc/share.list",
      "/share/../api/trpc/x",
      "/share/%2e%2e/api/trpc/x",
      "/share/%2E%2E/x",
      "/api/share/..%2ftrpc",
      "/share//x",
      "/share/a\\..\\b",
      "/_next/data/x",
      "/api/sharex/",
      "/favicon.ico/x",
      "/favicon.icox",
    ]) {
      expect({ path, route: shareRouteOf(path) }).toEqual({ path, route: undefined });
    }
  });

  it("keeps pinned headers whatever the next handler sets, through setHeader and writeHead", async () => {
    const server = createServer((_request, response) => {
      pinHeaders(response, { "Cache-Control": "no-store", "X-Robots-Tag": "noindex, nofollow" });
      response.setHeader("cache-control", "public, max-age=31536000");
      response.writeHead(200, { "Cache-Control": "s-maxage=1", "Content-Type": "text/plain" });
      response.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const headers = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
        request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, (response) => {
          response.resume();
          resolve(response.headers);
        })
          .on("error", reject)
          .end();
      });
      expect(headers["cache-control"]).toBe("no-store");
      expect(headers["x-robots-tag"]).toBe("noindex, nofollow");
      expect(headers["content-type"]).toBe("text/plain");
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("builds a nonce CSP without unsafe-inline scripts or any other origin", () => {
    const csp = sharePageCsp("abc123");
    expect(csp).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/https?:|\*|unsafe-eval/);
  });
});
