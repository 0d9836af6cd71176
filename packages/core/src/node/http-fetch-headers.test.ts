import { describe, expect, it } from "vitest";
import { FetchHeaders } from "./http-fetch-headers.ts";

/** The same steps on Node's own Headers (undici) and on ours give the same result. */
function both(steps: (headers: Headers) => void): [Array<[string, string]>, Array<[string, string]>] {
  const native = new Headers();
  const ours = new FetchHeaders();
  steps(native);
  steps(ours);
  return [[...native], [...ours]];
}

describe("FetchHeaders", () => {
  it("behaves as Node's Headers: case-insensitive names, sorted lowercase listing, appended values joined", () => {
    const [native, ours] = both((headers) => {
      headers.append("X-Beta", "one");
      headers.append("x-beta", "two");
      headers.set("Content-Type", "application/json");
      headers.append("accept", "*/*");
      headers.append("Set-Cookie", "a=1");
      headers.append("set-cookie", "b=2");
      headers.delete("ACCEPT");
      headers.set("Retry-After", "  3\t");
    });
    expect(ours).toEqual(native);
    expect(ours).toEqual([
      ["content-type", "application/json"],
      ["retry-after", "3"],
      ["set-cookie", "a=1"],
      ["set-cookie", "b=2"],
      ["x-beta", "one, two"],
    ]);
  });

  it("answers get, has and getSetCookie as Node's Headers does", () => {
    const headers = new FetchHeaders([
      ["Request-Id", "req_1"],
      ["Set-Cookie", "a=1"],
      ["set-cookie", "b=2"],
    ]);
    expect(headers.get("request-id")).toBe("req_1");
    expect(headers.get("REQUEST-ID")).toBe("req_1");
    expect(headers.get("missing")).toBeNull();
    expect(headers.has("Request-Id")).toBe(true);
    expect(headers.get("set-cookie")).toBe("a=1, b=2");
    expect(headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect([...headers.keys()]).toEqual(["request-id", "set-cookie", "set-cookie"]);
    expect(Object.prototype.toString.call(headers)).toBe("[object Headers]");
  });

  it("takes a record, pairs, its own kind or Node's Headers as init", () => {
    const fromRecord = new FetchHeaders({ "X-A": "1", "x-b": "2" });
    const fromNative = new FetchHeaders(new Headers({ "X-A": "1", "x-b": "2" }));
    const fromOwn = new FetchHeaders(fromRecord);
    for (const headers of [fromRecord, fromNative, fromOwn])
      expect([...headers]).toEqual([
        ["x-a", "1"],
        ["x-b", "2"],
      ]);
    // Node's Headers takes ours as init too (the SDK hands them to Node's fetch in `cairn serve`).
    expect(new Headers(fromRecord).get("x-a")).toBe("1");
    const seen: string[] = [];
    fromRecord.forEach((value, name) => seen.push(`${name}=${value}`));
    expect(seen).toEqual(["x-a=1", "x-b=2"]);
  });

  it("refuses invalid names, values and pairs with a TypeError, as Node's Headers does", () => {
    for (const make of [(H: typeof Headers) => new H({ "bad name": "x" }), (H: typeof Headers) => new H({ ok: "line\nbreak" })]) {
      expect(() => make(Headers)).toThrow(TypeError);
      expect(() => make(FetchHeaders)).toThrow(TypeError);
    }
    expect(() => new FetchHeaders([["only-name"]] as never)).toThrow(TypeError);
    expect(() => new FetchHeaders().append("", "x")).toThrow(TypeError);
  });
});
