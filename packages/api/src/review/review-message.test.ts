import { describe, expect, it } from "vitest";
import { formatReviewMessage } from "./review-message.ts";

describe("formatReviewMessage", () => {
  it("lists each comment with file:line, the code on the line and the text, in file and line order", () => {
    const message = formatReviewMessage([
      { path: "src/math.ts", line: 1, code: "export const add = 1;", text: "Keep the function." },
      { path: "src/greet.ts", line: 2, code: '  return "Hi";', text: "Use a template literal\nand keep the name." },
      { path: "src/greet.ts", line: 9, code: null, text: "Gone?" },
    ]);
    expect(message).toBe(
      [
        "I reviewed your changes and left 3 comments. Please address each of them:",
        "",
        "1. src/greet.ts:2",
        '      return "Hi";',
        "   Use a template literal",
        "   and keep the name.",
        "",
        "2. src/greet.ts:9",
        "    (the file has no such line any more)",
        "   Gone?",
        "",
        "3. src/math.ts:1",
        "    export const add = 1;",
        "   Keep the function.",
      ].join("\n"),
    );
  });
});
