export type GitFileState = "modified" | "added" | "deleted" | "renamed" | "copied" | "type-changed" | "unmerged";

export type GitStatusFile = {
  path: string;
  /** The old path of a rename or copy. */
  from?: string;
  /** The change in the index (what a commit would record), null when none. */
  staged: GitFileState | null;
  /** The change in the working tree not yet staged; "untracked" for a new file git does not know. */
  unstaged: GitFileState | "untracked" | null;
};

export type GitStatus = {
  /** null: detached HEAD. */
  branch: string | null;
  upstream: string | null;
  ahead: number;
  behind: number;
  /** No commit yet on the branch. */
  unborn: boolean;
  files: GitStatusFile[];
};

const stateOf: Record<string, GitFileState> = { M: "modified", A: "added", D: "deleted", R: "renamed", C: "copied", T: "type-changed", U: "unmerged" };

function state(letter: string | undefined): GitFileState | null {
  if (letter === undefined || letter === ".") return null;
  return stateOf[letter] ?? "modified";
}

/** Parses `git status --porcelain=v2 --branch -z`. */
export function parseStatus(output: string): GitStatus {
  const status: GitStatus = { branch: null, upstream: null, ahead: 0, behind: 0, unborn: false, files: [] };
  const records = output.split("\0");
  for (let index = 0; index < records.length; index++) {
    const record = records[index]!;
    if (record === "") continue;
    if (record.startsWith("# branch.head ")) {
      const head = record.slice("# branch.head ".length);
      status.branch = head === "(detached)" ? null : head;
    } else if (record.startsWith("# branch.oid ")) {
      status.unborn = record.endsWith("(initial)");
    } else if (record.startsWith("# branch.upstream ")) {
      status.upstream = record.slice("# branch.upstream ".length);
    } else if (record.startsWith("# branch.ab ")) {
      const match = /\+(\d+) -(\d+)/.exec(record);
      status.ahead = Number(match?.[1] ?? 0);
      status.behind = Number(match?.[2] ?? 0);
    } else if (record.startsWith("1 ") || record.startsWith("u ")) {
      const fields = record.split(" ");
      const xy = fields[1] ?? "..";
      const path = fields.slice(record.startsWith("1 ") ? 8 : 10).join(" ");
      const unmerged = record.startsWith("u ");
      status.files.push({ path, staged: unmerged ? "unmerged" : state(xy[0]), unstaged: unmerged ? "unmerged" : state(xy[1]) });
    } else if (record.startsWith("2 ")) {
      const fields = record.split(" ");
      const xy = fields[1] ?? "..";
      const path = fields.slice(9).join(" ");
      const from = records[++index] ?? "";
      status.files.push({ path, from, staged: state(xy[0]), unstaged: state(xy[1]) });
    } else if (record.startsWith("? ")) {
      status.files.push({ path: record.slice(2), staged: null, unstaged: "untracked" });
    }
  }
  status.files.sort((left, right) => left.path.localeCompare(right.path));
  return status;
}
