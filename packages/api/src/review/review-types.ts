// The review workflow's wire types, free of Node imports: the web app's typecheck reaches them through the router.

/** One run of changed lines between two versions of a file (no context lines). */
export type LineHunk = {
  index: number;
  /** 1-based first line in the old version (for an insertion: the line it comes after, 0 at the top). */
  beforeStart: number;
  beforeLines: string[];
  /** 1-based first line in the new version (for a deletion: the line the removed lines came after). */
  afterStart: number;
  afterLines: string[];
};

export type ChangedFileView = {
  path: string;
  status: "added" | "modified" | "deleted";
  /** The file when the session started and now; null when it did not exist (or is binary or too large). */
  before: string | null;
  after: string | null;
  /** True when the content is not shown (binary or larger than the diff limit). */
  binary: boolean;
  /** SHA-256 of the file now (null: it does not exist); a revert must name it, so a file changed since is not overwritten. */
  sha256: string | null;
  hunks: LineHunk[];
};

export type ChangesView = { baseline: string | null; files: ChangedFileView[] };
export type RevertResult = { path: string; sha256: string | null };
export type ReviewCommentInput = { path: string; line: number; text: string };
