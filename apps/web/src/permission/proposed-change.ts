/** What a permission prompt shows: the exact change of a file edit, the exact command, the plan to approve, or the raw input. */
export type ProposedChange =
  | { kind: "file"; path: string; original: string; modified: string; note: string | undefined }
  | { kind: "command"; command: string; description: string | undefined }
  | { kind: "plan"; plan: string }
  | { kind: "input"; json: string };

const asRecord = (value: unknown): Record<string, unknown> =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const asString = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** The paths whose current content the prompt needs to compute the change. */
export function filePathOf(toolName: string, input: unknown): string | undefined {
  if (toolName !== "Edit" && toolName !== "Write" && toolName !== "MultiEdit") return undefined;
  return asString(asRecord(input).file_path);
}

/**
 * Computes the change a tool call would make. For Edit, `current` is the file as it is now (undefined when it
 * does not exist); the replacement follows the Edit tool: the first occurrence, or every one with replace_all.
 */
export function proposedChange(toolName: string, input: unknown, current: string | undefined): ProposedChange {
  const fields = asRecord(input);
  const path = asString(fields.file_path);
  if (toolName === "Write" && path !== undefined) {
    return { kind: "file", path, original: current ?? "", modified: asString(fields.content) ?? "", note: current === undefined ? "New file" : undefined };
  }
  if (toolName === "Edit" && path !== undefined) {
    const oldString = asString(fields.old_string) ?? "";
    const newString = asString(fields.new_string) ?? "";
    if (current === undefined) {
      return oldString === ""
        ? { kind: "file", path, original: "", modified: newString, note: "New file" }
        : { kind: "file", path, original: oldString, modified: newString, note: "The file does not exist; showing old_string → new_string." };
    }
    if (oldString === "") return { kind: "file", path, original: current, modified: current, note: "old_string is empty; the tool will refuse this edit." };
    const at = current.indexOf(oldString);
    if (at === -1) {
      return {
        kind: "file",
        path,
        original: oldString,
        modified: newString,
        note: "old_string is not in the file as it is now; showing old_string → new_string.",
      };
    }
    const modified =
      fields.replace_all === true ? current.split(oldString).join(newString) : current.slice(0, at) + newString + current.slice(at + oldString.length);
    return { kind: "file", path, original: current, modified, note: undefined };
  }
  if (toolName === "ExitPlanMode") {
    const plan = asString(fields.plan);
    if (plan !== undefined) return { kind: "plan", plan };
  }
  if (toolName === "Bash") {
    const command = asString(fields.command);
    if (command !== undefined) return { kind: "command", command, description: asString(fields.description) };
  }
  return { kind: "input", json: JSON.stringify(input ?? null, null, 2) };
}
