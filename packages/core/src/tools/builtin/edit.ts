import { z } from "zod";
import { toolInputSchema } from "../input-schema.ts";
import type { Tool, ToolResult, ToolUseContext, ValidationResult } from "../tool.ts";
import type { FileStat } from "../../workspace/port.ts";
import { buildPatch, countOccurrences, findActualString, replaceText, type PatchHunk } from "./edit-apply.ts";
import { checkReadFreshness, fileNotFoundMessage, recordFileState, requireAbsolutePath, resolveFilePath } from "./file-access.ts";
import { formatBytes, looseBoolean } from "./schema-helpers.ts";
import { applyLineEnding, decodeText, encodeText, normalizeLineEndings, type LineEnding, type TextEncoding } from "./text-codec.ts";
import { toolFailure, validateWithFailures, withToolFailures, type ToolFailureOutput } from "./tool-failure.ts";

export const maxEditBytes = 16 * 1024 * 1024;
export const fileStateCurrentHint = " (file state is current in your context — no need to Read it back)";

export const editInputSchema = toolInputSchema("Edit", () =>
  z.strictObject({
    file_path: z.string().describe("The absolute path to the file to modify"),
    old_string: z.string().describe("The text to replace"),
    new_string: z.string().describe("The text to replace it with (must be different from old_string)"),
    replace_all: looseBoolean().optional().default(false).describe("Replace all occurrences of old_string (default false)"),
  }),
);
export type EditInput = z.infer<typeof editInputSchema>;

export type EditSuccessOutput = {
  filePath: string;
  oldString: string;
  newString: string;
  originalFile: string;
  structuredPatch: PatchHunk[];
  userModified: boolean;
  replaceAll: boolean;
};
export type EditOutput = EditSuccessOutput | ToolFailureOutput;

const description = `Performs exact string replacements in files.

Usage:
- You must use your Read tool at least once in the conversation before editing. This tool will error if you attempt an edit without reading the file, or if the file changed on disk since you read it.
- When editing text from Read tool output, preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The prefix format is: line number + tab. Everything after that tab is the actual file content to match. Never include any part of the line number prefix in old_string or new_string.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- The edit will FAIL if old_string is not unique in the file. Either provide a larger string with more surrounding context to make it unique or use replace_all to change every instance of old_string.
- Use replace_all for replacing and renaming strings across the file.
- Line endings are kept as the file has them: write old_string and new_string with plain \\n newlines.
- With an empty old_string, Edit creates a new file (or fills an empty one) with new_string.`;

type EditPlan = {
  key: string;
  exists: boolean;
  original: string;
  actualOld: string;
  encoding: TextEncoding;
  lineEnding: LineEnding;
};

type Inspection = { ok: true; plan: EditPlan } | { ok: false; message: string; code: string };

function refuse(code: string, message: string): Inspection {
  return { ok: false, code, message };
}

/** Everything Edit checks, run in validateInput and again in call: the file may change while a person decides. */
async function inspectEdit(input: EditInput, context: ToolUseContext): Promise<Inspection> {
  const absolute = requireAbsolutePath(input.file_path, context);
  if (!absolute.ok) return refuse(absolute.code ?? "relative_path", absolute.message);
  if (input.old_string === input.new_string) {
    return refuse(
      "no_change",
      "No changes to make: old_string and new_string are exactly the same. To change the file, make new_string differ from old_string.",
    );
  }
  const key = await resolveFilePath(context, input.file_path);
  const stat = await context.workspace.stat(key);
  const fresh = { key, encoding: "utf8" as const, lineEnding: "LF" as const };
  if (!stat) {
    if (input.old_string === "") return { ok: true, plan: { ...fresh, exists: false, original: "", actualOld: "" } };
    return refuse("file_not_found", await fileNotFoundMessage(context, input.file_path));
  }
  if (stat.kind === "directory") return refuse("is_directory", `${input.file_path} is a directory, not a file. Give the path of a file to edit.`);
  if (stat.size > maxEditBytes) {
    return refuse("too_large", `File is too large to edit (${formatBytes(stat.size)}). Maximum editable file size is ${formatBytes(maxEditBytes)}.`);
  }
  if (input.file_path.endsWith(".ipynb")) {
    return refuse("notebook", "File is a Jupyter Notebook. Edit its JSON with the Write tool after reading it, or use the Bash tool.");
  }
  const decoded = decodeText(await context.workspace.readFile(key, { signal: context.signal }));
  const original = normalizeLineEndings(decoded.text);
  const base = { ...fresh, exists: true, original, encoding: decoded.encoding, lineEnding: decoded.lineEnding };
  if (input.old_string === "") {
    if (original.trim() !== "") {
      return refuse("file_exists", "Cannot create new file - file already exists. To change it, Read it and pass the text to replace as old_string.");
    }
    return { ok: true, plan: { ...base, actualOld: "" } };
  }
  const freshness = checkReadFreshness(context, key, stat);
  if (!freshness.ok) return refuse(freshness.code ?? "stale", freshness.message);
  const search = normalizeLineEndings(input.old_string);
  const actualOld = findActualString(original, search);
  if (actualOld === undefined) {
    return refuse(
      "string_not_found",
      `String to replace not found in file. Read the file again and copy the exact text, including whitespace and indentation, without the line number prefix.\nString: ${input.old_string}`,
    );
  }
  const matches = countOccurrences(original, actualOld);
  if (matches > 1 && !input.replace_all) {
    return refuse(
      "multiple_matches",
      `Found ${matches} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: ${input.old_string}`,
    );
  }
  return { ok: true, plan: { ...base, actualOld } };
}

export function createEditTool(options: { now?: () => number } = {}): Tool<EditInput, EditOutput> {
  const now = options.now ?? Date.now;
  return {
    name: "Edit",
    inputSchema: editInputSchema,
    description,
    maxResultChars: 10_000,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    getPath: (input) => input.file_path,
    validateInput(input, context): Promise<ValidationResult> {
      return validateWithFailures(context, input.file_path, async () => {
        const inspection = await inspectEdit(input, context);
        return inspection.ok ? { ok: true } : { ok: false, code: inspection.code, message: inspection.message };
      });
    },
    call(input, context) {
      return withToolFailures(context, input.file_path, async (): Promise<ToolResult<EditOutput>> => {
        const inspection = await inspectEdit(input, context);
        if (!inspection.ok) return toolFailure(inspection.message);
        const { plan } = inspection;
        const updated = replaceText(plan.original, plan.actualOld, normalizeLineEndings(input.new_string), input.replace_all);
        const written: FileStat = await context.workspace.writeFile(plan.key, encodeText(applyLineEnding(updated, plan.lineEnding), plan.encoding), {
          signal: context.signal,
        });
        recordFileState(context, plan.key, written, now(), false);
        return {
          output: {
            filePath: input.file_path,
            oldString: plan.actualOld,
            newString: input.new_string,
            originalFile: plan.original,
            structuredPatch: buildPatch(input.file_path, plan.original, updated),
            userModified: false,
            replaceAll: input.replace_all,
          },
        };
      });
    },
    renderResult(output) {
      if (typeof output === "string") return output.replace(/^Error: /, "");
      if (output.replaceAll) return `The file ${output.filePath} has been updated. All occurrences were successfully replaced.${fileStateCurrentHint}`;
      return `The file ${output.filePath} has been updated successfully.${fileStateCurrentHint}`;
    },
  };
}

export const editTool = createEditTool();
