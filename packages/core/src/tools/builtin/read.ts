import { z } from "zod";
import { toolInputSchema } from "../input-schema.ts";
import type { ToolResultContent } from "../../schema/content.ts";
import type { Tool, ToolResult, ToolUseContext } from "../tool.ts";
import { toolResultFilesOf } from "../tool-result-files.ts";
import { fileNotFoundMessage, recordFileState, requireAbsolutePath, resolveFilePath } from "./file-access.ts";
import { extnameOf } from "./path-utils.ts";
import { formatBytes, looseNumber } from "./schema-helpers.ts";
import { decodeText, looksBinary, normalizeLineEndings, sniffImageType, toBase64, type ImageMediaType } from "./text-codec.ts";
import { toolFailure, withToolFailures, type ToolFailureOutput } from "./tool-failure.ts";

export const readLimits = {
  defaultLineLimit: 2000,
  maxLineChars: 2000,
  /** About 25,000 tokens, Claude Code's cap for one Read. */
  maxResultChars: 100_000,
  maxImageBytes: 3.75 * 1024 * 1024,
  /** The port reads whole files; anything larger must be searched or sliced with Bash. */
  maxFileBytes: 32 * 1024 * 1024,
} as const;

const imageExtensions = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp"]);
const binaryExtensions = new Set(
  (
    ".exe .dll .so .dylib .o .a .lib .obj .class .jar .war .pyc .pyo .wasm .bin .dat .db .sqlite .sqlite3 " +
    ".zip .tar .gz .tgz .bz2 .xz .7z .rar .zst .iso .dmg .deb .rpm .pdf .doc .docx .xls .xlsx .ppt .pptx " +
    ".mp3 .mp4 .m4a .mov .avi .mkv .wav .flac .ogg .webm .ttf .otf .woff .woff2 .eot .ico .bmp .tif .tiff .psd"
  ).split(" "),
);

export const readInputSchema = toolInputSchema("Read", () =>
  z.strictObject({
    file_path: z.string().describe("The absolute path to the file to read"),
    offset: looseNumber(z.number().int().nonnegative())
      .optional()
      .describe("The line number to start reading from. Only provide if the file is too large to read at once"),
    limit: looseNumber(z.number().int().positive()).optional().describe("The number of lines to read. Only provide if the file is too large to read at once."),
  }),
);
export type ReadInput = z.infer<typeof readInputSchema>;

export type ReadTextOutput = {
  type: "text";
  file: {
    filePath: string;
    content: string;
    numLines: number;
    startLine: number;
    totalLines: number;
    /** Set when the default line limit (not the caller's) cut the file short. */
    truncated?: boolean;
  };
};
export type ReadImageOutput = { type: "image"; file: { base64: string; type: ImageMediaType; originalSize: number } };
export type ReadOutput = ReadTextOutput | ReadImageOutput | ToolFailureOutput;

const description = `Reads a file from the workspace. You can access any file inside the workspace directly with this tool.

Usage:
- The file_path parameter must be an absolute path, not a relative path
- By default, it reads up to ${readLimits.defaultLineLimit} lines starting from the beginning of the file
- You can optionally specify a line offset and limit (especially handy for long files), but it's recommended to read the whole file by not providing these parameters
- Any lines longer than ${readLimits.maxLineChars} characters will be truncated
- Results are returned with line numbers starting at 1, as "<line number><tab><line>"
- This tool can read images (PNG, JPG, GIF, WEBP); their contents are presented visually
- This tool can only read files, not directories. To list a directory, use Glob or ls via the Bash tool
- You can call multiple tools in a single response. It is always better to speculatively read multiple potentially useful files in parallel
- If you read a file that exists but has empty contents you will receive a warning in place of file contents`;

export function createReadTool(options: { now?: () => number } = {}): Tool<ReadInput, ReadOutput> {
  const now = options.now ?? Date.now;
  return {
    name: "Read",
    inputSchema: readInputSchema,
    description,
    maxResultChars: readLimits.maxResultChars + 1000,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    getPath: (input) => input.file_path,
    async validateInput(input, context) {
      const absolute = requireAbsolutePath(input.file_path, context);
      if (!absolute.ok) return absolute;
      const extension = extnameOf(input.file_path);
      if (binaryExtensions.has(extension)) {
        return {
          ok: false,
          code: "binary_file",
          message: `This tool cannot read binary files. The file appears to be a binary ${extension} file. Please use appropriate tools for binary file analysis.`,
        };
      }
      return { ok: true };
    },
    call(input, context) {
      return withToolFailures(context, input.file_path, async (): Promise<ToolResult<ReadOutput>> => {
        // A tool result the per-message budget saved to disk, outside the workspace.
        const saved = toolResultFilesOf(context);
        if (saved?.owns(input.file_path)) {
          const output = selectLines(input, normalizeLineEndings(await saved.read(input.file_path, context.signal)));
          output.file.filePath = input.file_path;
          return { output };
        }
        const key = await resolveFilePath(context, input.file_path);
        const stat = await context.workspace.stat(key);
        if (!stat) return toolFailure(await fileNotFoundMessage(context, input.file_path));
        if (stat.kind === "directory") {
          return toolFailure(`${input.file_path} is a directory, not a file. Use the Glob tool, or ls via the Bash tool, to list its contents.`);
        }
        if (imageExtensions.has(extnameOf(input.file_path))) return readImage(input.file_path, key, stat.size, context);
        if (stat.size > readLimits.maxFileBytes) {
          return toolFailure(
            `File is too large to read (${formatBytes(stat.size)}; the limit is ${formatBytes(readLimits.maxFileBytes)}). Use Grep to search it, or head, tail or sed via the Bash tool to view parts of it.`,
          );
        }
        const bytes = await context.workspace.readFile(key, { signal: context.signal });
        if (looksBinary(bytes)) {
          return toolFailure("This tool cannot read binary files. The file contains NUL bytes. Use the Bash tool with file, xxd or strings to inspect it.");
        }
        const output = selectLines(input, normalizeLineEndings(decodeText(bytes).text));
        output.file.filePath = input.file_path;
        const rendered = renderReadOutput(output);
        if (typeof rendered === "string" && rendered.length > readLimits.maxResultChars) {
          return toolFailure(
            `File content (${Math.ceil(rendered.length / 4)} tokens) exceeds maximum allowed tokens (${readLimits.maxResultChars / 4}). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.`,
          );
        }
        recordFileState(context, key, stat, now(), input.offset !== undefined || input.limit !== undefined);
        return { output };
      });
    },
    renderResult: renderReadOutput,
  };
}

async function readImage(filePath: string, key: string, size: number, context: ToolUseContext): Promise<ToolResult<ReadOutput>> {
  if (size > readLimits.maxImageBytes) {
    return toolFailure(
      `Image file is too large (${formatBytes(size)}). The maximum image size is ${formatBytes(readLimits.maxImageBytes)}; resize or crop it first, for example with the Bash tool.`,
    );
  }
  const bytes = await context.workspace.readFile(key, { signal: context.signal });
  const type = sniffImageType(bytes);
  if (!type) return toolFailure(`${filePath} does not contain a PNG, JPEG, GIF or WEBP image, although its name says so.`);
  return { output: { type: "image", file: { base64: toBase64(bytes), type, originalSize: bytes.byteLength } } };
}

function selectLines(input: ReadInput, text: string): ReadTextOutput {
  // An empty file has no lines; otherwise a trailing newline yields a final empty line, as Claude Code shows it.
  const lines = text === "" ? [] : text.split("\n");
  const startIndex = input.offset && input.offset > 0 ? input.offset - 1 : 0;
  const limit = input.limit ?? readLimits.defaultLineLimit;
  const selected = lines.slice(startIndex, startIndex + limit);
  return {
    type: "text",
    file: {
      filePath: "",
      content: selected.join("\n"),
      numLines: selected.length,
      startLine: startIndex + 1,
      totalLines: lines.length,
      ...(input.limit === undefined && startIndex + selected.length < lines.length ? { truncated: true } : {}),
    },
  };
}

export function renderReadOutput(output: ReadOutput): ToolResultContent {
  if (typeof output === "string") return output.replace(/^Error: /, "");
  if (output.type === "image") {
    return [{ type: "image", source: { type: "base64", media_type: output.file.type, data: output.file.base64 } }];
  }
  const { file } = output;
  if (file.totalLines === 0) return "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>";
  if (file.numLines === 0) {
    return `<system-reminder>Warning: the file exists but is shorter than the provided offset (${file.startLine}). The file has ${file.totalLines} lines.</system-reminder>`;
  }
  let longLines = 0;
  const numbered = file.content.split("\n").map((line, index) => {
    if (line.length <= readLimits.maxLineChars) return `${file.startLine + index}\t${line}`;
    longLines += 1;
    return `${file.startLine + index}\t${line.slice(0, readLimits.maxLineChars)}… [line truncated, ${line.length - readLimits.maxLineChars} more characters]`;
  });
  const notes: string[] = [];
  const lastLine = file.startLine + file.numLines - 1;
  if (file.truncated) {
    notes.push(`Showing lines ${file.startLine}-${lastLine} of ${file.totalLines}. Use offset and limit to read the rest of the file.`);
  }
  if (longLines > 0) {
    notes.push(
      `${longLines} line${longLines === 1 ? " was" : "s were"} longer than ${readLimits.maxLineChars} characters and cut; use Grep or the Bash tool to see them whole.`,
    );
  }
  const body = numbered.join("\n");
  return notes.length === 0 ? body : `${body}\n\n<system-reminder>${notes.join(" ")}</system-reminder>`;
}

export const readTool = createReadTool();
