/** A line comment waiting in the pending review: the line is in the file as it is now (the diff's right side). */
export type PendingComment = { id: string; path: string; line: number; code: string; text: string };

export type PendingReview = { sessionId: string | null; comments: PendingComment[] };

export type PendingReviewAction =
  | { type: "session"; sessionId: string | null }
  | { type: "add"; comment: Omit<PendingComment, "id"> }
  | { type: "remove"; id: string }
  | { type: "sent" };

export const emptyReview: PendingReview = { sessionId: null, comments: [] };

/** The pending review belongs to one session: switching sessions starts an empty one. */
export function pendingReviewReducer(state: PendingReview, action: PendingReviewAction): PendingReview {
  switch (action.type) {
    case "session":
      return action.sessionId === state.sessionId ? state : { sessionId: action.sessionId, comments: [] };
    case "add": {
      const text = action.comment.text.trim();
      if (text === "") return state;
      const id = `${action.comment.path}:${action.comment.line}:${state.comments.length}:${text.length}`;
      const comments = [...state.comments, { ...action.comment, text, id }];
      comments.sort((left, right) => left.path.localeCompare(right.path) || left.line - right.line);
      return { ...state, comments };
    }
    case "remove":
      return { ...state, comments: state.comments.filter((comment) => comment.id !== action.id) };
    case "sent":
      return { ...state, comments: [] };
  }
}
