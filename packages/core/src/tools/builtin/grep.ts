import { z } from "zod";
import { toolInputSchema } from "../input-schema.ts";
import type { Tool, ToolResult } from "../tool.ts";
import type { GrepQuery } from "../../workspace/port.ts";
import { looseBoolean, looseNumber, plural } from "./schema-helpers.ts";
import { relativizeLine, searchRoot, validateSearchPath } from "./search-paths.ts";
import { withToolFailures, type ToolFailureOutput } from "./tool-failure.ts";

/** Claude Code's cap when head_limit is not given; 0 means unlimited. */
export const grepDefaultHeadLimit = 250;

const contextLines = () => looseNumber(z.number().int().nonnegative()).optional();

export const grepInputSchema = toolInputSchema("Grep", () =>
  z.strictObject({
    pattern: z.string().min(1).describe("The regular expression pattern to search for in file contents"),
    path: z.string().optional().describe("File or directory to search in (rg PATH). Defaults to current working directory."),
    glob: z.string().optional().describe('Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob'),
    output_mode: z
      .enum(["content", "files_with_matches", "count"])
      .optional()
      .describe(
        'Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), "files_with_matches" shows file paths (supports head_limit), "count" shows match counts (supports head_limit). Defaults to "files_with_matches".',
      ),
    "-B": contextLines().describe('Number of lines to show before each match (rg -B). Requires output_mode: "content", ignored otherwise.'),
    "-A": contextLines().describe('Number of lines to show after each match (rg -A). Requires output_mode: "content", ignored otherwise.'),
    "-C": contextLines().describe('Number of lines to show before and after each match (rg -C). Requires output_mode: "content", ignored otherwise.'),
    "-n": looseBoolean().optional().describe('Show line numbers in output (rg -n). Requires output_mode: "content", ignored otherwise. Defaults to true.'),
    "-i": looseBoolean().optional().describe("Case insensitive search (rg -i)"),
    type: z
      .string()
      .optional()
      .describe("File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient than include for standard file types."),
    head_limit: looseNumber(z.number().int().nonnegative())
      .optional()
      .describe(
        `Limit output to first N lines/entries, equivalent to "| head -N". Works across all output modes. Defaults to ${grepDefaultHeadLimit} when unspecified. Pass 0 for unlimited (use sparingly).`,
      ),
    multiline: looseBoolean()
      .optional()
      .describe("Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false."),
  }),
);
export type GrepInput = z.infer<typeof grepInputSchema>;

export type GrepSuccessOutput = {
  mode: GrepQuery["outputMode"];
  numFiles: number;
  filenames: string[];
  content?: string;
  numLines?: number;
  numMatches?: number;
  appliedLimit?: number;
};
export type GrepOutput = GrepSuccessOutput | ToolFailureOutput;

const description = `A powerful search tool built on ripgrep

Usage:
- ALWAYS use Grep for search tasks. NEVER invoke \`grep\` or \`rg\` as a Bash command.
- Supports full regex syntax (e.g., "log.*Error", "function\\s+\\w+")
- Filter files with glob parameter (e.g., "*.js", "**/*.tsx") or type parameter (e.g., "js", "py", "rust")
- Output modes: "content" shows matching lines, "files_with_matches" shows only file paths (default), "count" shows match counts
- Pattern syntax: Uses ripgrep (not grep) - literal braces need escaping (use \`interface\\{\\}\` to find \`interface{}\` in Go code)
- Multiline matching: By default patterns match within single lines only. For cross-line patterns like \`struct \\{[\\s\\S]*?field\`, use \`multiline: true\``;

function toQuery(input: GrepInput, path: string | undefined): GrepQuery {
  const mode = input.output_mode ?? "files_with_matches";
  const headLimit = input.head_limit ?? grepDefaultHeadLimit;
  const query: GrepQuery = { pattern: input.pattern, outputMode: mode };
  if (path !== undefined) query.path = path;
  if (input.glob) query.glob = input.glob;
  if (input.type) query.type = input.type;
  if (input["-i"]) query.caseInsensitive = true;
  if (input.multiline) query.multiline = true;
  if (headLimit > 0) query.headLimit = headLimit;
  if (mode === "content") {
    query.lineNumbers = input["-n"] ?? true;
    if (input["-C"] !== undefined) query.context = input["-C"];
    else {
      if (input["-B"] !== undefined) query.before = input["-B"];
      if (input["-A"] !== undefined) query.after = input["-A"];
    }
  }
  return query;
}

export function createGrepTool(): Tool<GrepInput, GrepOutput> {
  return {
    name: "Grep",
    inputSchema: grepInputSchema,
    description,
    maxResultChars: 20_000,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    getPath: (input) => input.path,
    validateInput: (input, context) => validateSearchPath(context, input.path, false),
    call(input, context) {
      return withToolFailures(context, input.path, async (): Promise<ToolResult<GrepOutput>> => {
        const query = toQuery(input, searchRoot(context, input.path));
        const result = await context.workspace.grep(query, { signal: context.signal });
        const lines = result.lines.map((line) => relativizeLine(context.cwd, line));
        const limit = result.truncated && query.headLimit !== undefined ? { appliedLimit: query.headLimit } : {};
        if (query.outputMode === "files_with_matches") {
          return { output: { mode: "files_with_matches", numFiles: lines.length, filenames: lines, ...limit } };
        }
        if (query.outputMode === "content") {
          return { output: { mode: "content", numFiles: 0, filenames: [], content: lines.join("\n"), numLines: lines.length, ...limit } };
        }
        let numMatches = 0;
        for (const line of lines) {
          const count = Number.parseInt(line.slice(line.lastIndexOf(":") + 1), 10);
          if (!Number.isNaN(count)) numMatches += count;
        }
        return { output: { mode: "count", numFiles: lines.length, filenames: [], content: lines.join("\n"), numMatches, ...limit } };
      });
    },
    renderResult(output) {
      if (typeof output === "string") return output.replace(/^Error: /, "");
      const limitInfo = output.appliedLimit === undefined ? "" : `limit: ${output.appliedLimit}`;
      if (output.mode === "content") {
        const body = output.content || "No matches found";
        return limitInfo ? `${body}\n\n[Showing results with pagination = ${limitInfo}]` : body;
      }
      if (output.mode === "count") {
        const matches = output.numMatches ?? 0;
        const summary = `Found ${plural(matches, "total occurrence")} across ${plural(output.numFiles, "file")}.`;
        return `${output.content || "No matches found"}\n\n${summary}${limitInfo ? ` with pagination = ${limitInfo}` : ""}`;
      }
      if (output.numFiles === 0) return "No files found";
      return `Found ${plural(output.numFiles, "file")}${limitInfo ? ` ${limitInfo}` : ""}\n${output.filenames.join("\n")}`;
    },
  };
}

export const grepTool = createGrepTool();
