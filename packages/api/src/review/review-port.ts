import type { SessionHub } from "../hub/session-hub.ts";
import type { ReviewPort } from "../router/context.ts";
import { ChangesService } from "./changes-service.ts";
import { ReviewService } from "./review-service.ts";

/** The Changes panel and Send review over the hub's sessions, each in the checkout it runs in (its worktree, or the workspace). */
export function createReviewPort(hub: SessionHub): ReviewPort {
  const changes = new ChangesService({
    session: (sessionId) => hub.session(sessionId),
    filesOf: async (sessionId) => ({ workspace: (await hub.runtimeOf(sessionId)).workspace, checkpoints: await hub.checkpointsOf(sessionId) }),
  });
  const review = new ReviewService({
    workspaceOf: async (sessionId) => (await hub.runtimeOf(sessionId)).workspace,
    send: (sessionId, prompt) => hub.send(sessionId, prompt),
  });
  return {
    changes: (sessionId) => changes.list(sessionId),
    revertFile: (sessionId, path, expectedSha256) => changes.revertFile(sessionId, path, expectedSha256),
    revertHunk: (sessionId, path, hunkIndex, expectedSha256) => changes.revertHunk(sessionId, path, hunkIndex, expectedSha256),
    sendReview: (sessionId, comments) => review.sendReview(sessionId, comments),
  };
}
