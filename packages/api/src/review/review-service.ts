import { join } from "node:path";
import type { Workspace } from "@cairn/core";
import type { SendResult } from "../router/types.ts";
import { formatReviewMessage } from "./review-message.ts";
import type { ReviewCommentInput } from "./review-types.ts";

/** Send review: the pending line comments become one user message, with the code read from the files now. */
export class ReviewService {
  private readonly workspace: Workspace;
  private readonly send: (sessionId: string, prompt: string) => Promise<SendResult>;

  constructor(options: { workspace: Workspace; send: (sessionId: string, prompt: string) => Promise<SendResult> }) {
    this.workspace = options.workspace;
    this.send = options.send;
  }

  async sendReview(sessionId: string, comments: readonly ReviewCommentInput[]): Promise<SendResult & { message: string }> {
    const withCode = await Promise.all(comments.map(async (comment) => ({ ...comment, code: await this.lineOf(comment.path, comment.line) })));
    const message = formatReviewMessage(withCode);
    return { ...(await this.send(sessionId, message)), message };
  }

  private async lineOf(path: string, line: number): Promise<string | null> {
    const absolute = await this.workspace.resolve(join(this.workspace.root, path));
    const stat = await this.workspace.stat(absolute);
    if (!stat || stat.kind !== "file") return null;
    const text = new TextDecoder().decode(await this.workspace.readFile(absolute));
    return text.split("\n")[line - 1]?.replace(/\r$/, "") ?? null;
  }
}
