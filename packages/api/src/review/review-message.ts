/** A line comment from the diff review, with the code on that line when the review is sent (null: past the end). */
export type ReviewComment = { path: string; line: number; text: string; code: string | null };

/**
 * The one user message a review becomes: each comment with its `file:line`, the code on that line
 * and what the reviewer wrote, in file and line order.
 */
export function formatReviewMessage(comments: readonly ReviewComment[]): string {
  const sorted = [...comments].sort((left, right) => left.path.localeCompare(right.path) || left.line - right.line);
  const parts = sorted.map((comment, index) => {
    const code = comment.code === null ? "    (the file has no such line any more)" : `    ${comment.code}`;
    return `${index + 1}. ${comment.path}:${comment.line}\n${code}\n   ${comment.text.trim().split("\n").join("\n   ")}`;
  });
  const count = sorted.length === 1 ? "one comment" : `${sorted.length} comments`;
  return `I reviewed your changes and left ${count}. Please address each of them:\n\n${parts.join("\n\n")}`;
}
