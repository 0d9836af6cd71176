import { describe, expect, it } from "vitest";
import { CappedText, EndMarkerScanner } from "./end-marker.ts";

const feed = (scanner: EndMarkerScanner, pieces: Array<string | Buffer>) => {
  let text = "";
  let status: number | undefined;
  let cwd: string | undefined;
  for (const piece of pieces) {
    const result = scanner.push(Buffer.isBuffer(piece) ? piece : Buffer.from(piece));
    text += result.text;
    status ??= result.status;
    cwd ??= result.cwd;
  }
  return { text, status, ...(cwd === undefined ? {} : { cwd }) };
};

describe("EndMarkerScanner", () => {
  it("passes text through and finds the marker with its status", () => {
    expect(feed(new EndMarkerScanner("abc"), ["hello\n", "__CAIRN_END_abc_7_/work/dir\0"])).toEqual({ text: "hello\n", status: 7, cwd: "/work/dir" });
  });

  it("finds a marker split across chunks, even a byte at a time, and holds back only a possible marker start", () => {
    const marker = "out__CAIRN_END_n1_0_/a b_c\0";
    expect(
      feed(
        new EndMarkerScanner("n1"),
        [...marker].map((character) => character),
      ),
    ).toEqual({ text: "out", status: 0, cwd: "/a b_c" });
    const scanner = new EndMarkerScanner("n1");
    expect(scanner.push(Buffer.from("text __CAI")).text).toBe("text ");
    expect(scanner.push(Buffer.from("X more")).text).toBe("__CAIX more");
  });

  it("ignores another command's marker and keeps multi-byte characters whole", () => {
    const euro = Buffer.from("€");
    expect(feed(new EndMarkerScanner("mine"), ["__CAIRN_END_other_1_\0", euro.subarray(0, 1), euro.subarray(1), "__CAIRN_END_mine_2_\0"])).toEqual({
      text: "__CAIRN_END_other_1_\0€",
      status: 2,
      cwd: "",
    });
  });

  it("gives back held text when the stream ends without a marker", () => {
    const scanner = new EndMarkerScanner("z");
    expect(scanner.push(Buffer.from("partial __CAIRN")).text).toBe("partial ");
    expect(scanner.flush()).toBe("__CAIRN");
  });
});

describe("CappedText", () => {
  it("keeps the first characters up to the limit and says when it cut", () => {
    const capped = new CappedText(5);
    expect(capped.append("abc")).toBe("abc");
    expect(capped.append("defg")).toBe("de");
    expect(capped.append("h")).toBe("");
    expect(capped.text).toBe("abcde");
    expect(capped.truncated).toBe(true);
  });
});
