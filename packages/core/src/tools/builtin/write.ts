import { z } from "zod";
import { toolInputSchema } from "../input-schema.ts";
import type { Tool, ToolResult, ToolUseContext, ValidationResult } from "../tool.ts";
import { buildPatch, type PatchHunk } from "./edit-apply.ts";
import { fileStateCurrentHint } from "./edit.ts";
import { checkReadFreshness, recordFileState, requireAbsolutePath, resolveFilePath } from "./file-access.ts";
import { decodeText, encodeText, normalizeLineEndings, type TextEncoding } from "./text-codec.ts";
import { toolFailure, validateWithFailures, withToolFailures, type ToolFailureOutput } from "./tool-failure.ts";

export const writeInputSchema = toolInputSchema("Write", () =>
  z.strictObject({
    file_path: z.string().describe("The absolute path to the file to write (must be absolute, not relative)"),
    content: z.string().describe("The content to write to the file"),
  }),
);
export type WriteInput = z.infer<typeof writeInputSchema>;

export type WriteSuccessOutput = {
  type: "create" | "update";
  filePath: string;
  content: string;
  structuredPatch: PatchHunk[];
  originalFile: string | null;
  userModified: boolean;
};
export type WriteOutput = WriteSuccessOutput | ToolFailureOutput;

const description = `Writes a file to the workspace.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the Read tool first to read the file's contents. This tool will fail if you did not read the file first, or if it changed on disk since you read it.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the User.
- The file_path must be absolute. Missing parent directories are created.`;

type Target = { key: string; existing: { text: string; encoding: TextEncoding } | null };

type Inspection = { ok: true; target: Target } | { ok: false; message: string; code: string };

async function inspectWrite(input: WriteInput, context: ToolUseContext, loadExisting: boolean): Promise<Inspection> {
  const absolute = requireAbsolutePath(input.file_path, context);
  if (!absolute.ok) return { ok: false, code: absolute.code ?? "relative_path", message: absolute.message };
  const key = await resolveFilePath(context, input.file_path);
  const stat = await context.workspace.stat(key);
  if (!stat) return { ok: true, target: { key, existing: null } };
  if (stat.kind === "directory") {
    return { ok: false, code: "is_directory", message: `${input.file_path} is a directory. Give the path of a file to write.` };
  }
  const freshness = checkReadFreshness(context, key, stat);
  if (!freshness.ok) return { ok: false, code: freshness.code ?? "stale", message: freshness.message };
  if (!loadExisting) return { ok: true, target: { key, existing: { text: "", encoding: "utf8" } } };
  const decoded = decodeText(await context.workspace.readFile(key, { signal: context.signal }));
  return { ok: true, target: { key, existing: { text: normalizeLineEndings(decoded.text), encoding: decoded.encoding } } };
}

export function createWriteTool(options: { now?: () => number } = {}): Tool<WriteInput, WriteOutput> {
  const now = options.now ?? Date.now;
  return {
    name: "Write",
    inputSchema: writeInputSchema,
    description,
    maxResultChars: 10_000,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    getPath: (input) => input.file_path,
    validateInput(input, context): Promise<ValidationResult> {
      return validateWithFailures(context, input.file_path, async () => {
        const inspection = await inspectWrite(input, context, false);
        return inspection.ok ? { ok: true } : { ok: false, code: inspection.code, message: inspection.message };
      });
    },
    call(input, context) {
      return withToolFailures(context, input.file_path, async (): Promise<ToolResult<WriteOutput>> => {
        const inspection = await inspectWrite(input, context, true);
        if (!inspection.ok) return toolFailure(inspection.message);
        const { key, existing } = inspection.target;
        // The model chose the line endings in `content`; only the file's encoding (BOM, UTF-16) is kept.
        const written = await context.workspace.writeFile(key, encodeText(input.content, existing?.encoding ?? "utf8"), {
          signal: context.signal,
        });
        recordFileState(context, key, written, now(), false);
        if (!existing) {
          return {
            output: { type: "create", filePath: input.file_path, content: input.content, structuredPatch: [], originalFile: null, userModified: false },
          };
        }
        return {
          output: {
            type: "update",
            filePath: input.file_path,
            content: input.content,
            structuredPatch: buildPatch(input.file_path, existing.text, normalizeLineEndings(input.content)),
            originalFile: existing.text,
            userModified: false,
          },
        };
      });
    },
    renderResult(output) {
      if (typeof output === "string") return output.replace(/^Error: /, "");
      if (output.type === "create") return `File created successfully at: ${output.filePath}${fileStateCurrentHint}`;
      return `The file ${output.filePath} has been updated successfully.${fileStateCurrentHint}`;
    },
  };
}

export const writeTool = createWriteTool();
