import { describe, expect, it } from "vitest";
import { emptyReview, pendingReviewReducer } from "./pending-review.ts";

describe("pending review", () => {
  it("keeps comments in file and line order, drops empty ones, removes and clears", () => {
    let state = pendingReviewReducer(emptyReview, { type: "session", sessionId: "s1" });
    state = pendingReviewReducer(state, { type: "add", comment: { path: "src/b.ts", line: 4, code: "x", text: " later " } });
    state = pendingReviewReducer(state, { type: "add", comment: { path: "src/a.ts", line: 9, code: "y", text: "first" } });
    state = pendingReviewReducer(state, { type: "add", comment: { path: "src/a.ts", line: 2, code: "z", text: "   " } });
    expect(state.comments.map((comment) => `${comment.path}:${comment.line} ${comment.text}`)).toEqual(["src/a.ts:9 first", "src/b.ts:4 later"]);
    state = pendingReviewReducer(state, { type: "remove", id: state.comments[0]!.id });
    expect(state.comments).toHaveLength(1);
    expect(pendingReviewReducer(state, { type: "sent" }).comments).toEqual([]);
  });

  it("starts empty for another session and keeps the comments for the same one", () => {
    let state = pendingReviewReducer(emptyReview, { type: "session", sessionId: "s1" });
    state = pendingReviewReducer(state, { type: "add", comment: { path: "a", line: 1, code: "", text: "t" } });
    expect(pendingReviewReducer(state, { type: "session", sessionId: "s1" })).toBe(state);
    expect(pendingReviewReducer(state, { type: "session", sessionId: "s2" }).comments).toEqual([]);
  });
});
