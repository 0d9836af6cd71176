import { join } from "node:path";
import type { Workspace } from "@cairn/core";
import type { SendResult } from "../router/types.ts";
import { formatReviewMessage } from "./review-message.ts";
import type { ReviewCommentInput } from "./review-types.ts";

/** Send review: the pending line comments become one user message, with the code read from the files now. */
export class ReviewService {
  private readonly workspaceOf: (sessionId: string) => Promise<Workspace>;
  private readonly send: (sessionId: string, prompt: string) => Promise<SendResult>;

  constructor(options: { workspaceOf(sessionId: string): Promise<Workspace>; send: (sessionId: string, prompt: string) => Promise<SendResult> }) {
    this.workspaceOf = options.workspaceOf;
    this.send = options.send;
  }

  async sendReview(sessionId: string, comments: readonly ReviewCommentInput[]): Promise<SendResult & { message: string }> {
    // The code is read where the session works: its worktree, or the main checkout.
    const workspace = await this.workspaceOf(sessionId);
    const withCode = await Promise.all(comments.map(async (comment) => ({ ...comment, code: await lineOf(workspace, comment.path, comment.line) })));
    const message = formatReviewMessage(withCode);
    return { ...(await this.send(sessionId, message)), message };
  }
}

async function lineOf(workspace: Workspace, path: string, line: number): Promise<string | null> {
  const absolute = await workspace.resolve(join(workspace.root, path));
  const stat = await workspace.stat(absolute);
  if (!stat || stat.kind !== "file") return null;
  const text = new TextDecoder().decode(await workspace.readFile(absolute));
  return text.split("\n")[line - 1]?.replace(/\r$/, "") ?? null;
}
