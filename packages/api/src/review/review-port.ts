import type { Workspace } from "@cairn/core";
import type { SessionHub } from "../hub/session-hub.ts";
import type { ReviewPort } from "../router/context.ts";
import { ChangesService } from "./changes-service.ts";
import { ReviewService } from "./review-service.ts";

/** The Changes panel and Send review over the hub's sessions and checkpoints. */
export function createReviewPort(hub: SessionHub, workspace: Workspace): ReviewPort {
  const changes = new ChangesService({ workspace, checkpoints: hub.checkpoints, session: (sessionId) => hub.session(sessionId) });
  const review = new ReviewService({ workspace, send: (sessionId, prompt) => hub.send(sessionId, prompt) });
  return {
    changes: (sessionId) => changes.list(sessionId),
    revertFile: (sessionId, path, expectedSha256) => changes.revertFile(sessionId, path, expectedSha256),
    revertHunk: (sessionId, path, hunkIndex, expectedSha256) => changes.revertHunk(sessionId, path, hunkIndex, expectedSha256),
    sendReview: (sessionId, comments) => review.sendReview(sessionId, comments),
  };
}
