import { z } from "zod";
import { toolInputSchema } from "../input-schema.ts";
import type { Tool, ToolResult } from "../tool.ts";
import { relativizeLine, searchRoot, validateSearchPath } from "./search-paths.ts";
import { withToolFailures, type ToolFailureOutput } from "./tool-failure.ts";

export const globResultLimit = 100;

export const globInputSchema = toolInputSchema("Glob", () =>
  z.strictObject({
    pattern: z.string().min(1).describe("The glob pattern to match files against"),
    path: z
      .string()
      .optional()
      .describe(
        'The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter "undefined" or "null" - simply omit it for the default behavior. Must be a valid directory path if provided.',
      ),
  }),
);
export type GlobInput = z.infer<typeof globInputSchema>;

export type GlobSuccessOutput = { filenames: string[]; durationMs: number; numFiles: number; truncated: boolean };
export type GlobOutput = GlobSuccessOutput | ToolFailureOutput;

const description = `- Fast file pattern matching tool that works with any codebase size
- Supports glob patterns like "**/*.js" or "src/**/*.ts"
- Returns matching file paths sorted by modification time, at most ${globResultLimit}
- Use this tool when you need to find files by name patterns
- You can call multiple tools in a single response. It is always better to speculatively perform multiple searches in parallel if they are potentially useful.`;

export function createGlobTool(options: { now?: () => number } = {}): Tool<GlobInput, GlobOutput> {
  const now = options.now ?? Date.now;
  return {
    name: "Glob",
    inputSchema: globInputSchema,
    description,
    maxResultChars: 100_000,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    getPath: (input) => input.path,
    validateInput: (input, context) => validateSearchPath(context, input.path, true),
    call(input, context) {
      return withToolFailures(context, input.path, async (): Promise<ToolResult<GlobOutput>> => {
        const startedAt = now();
        const path = searchRoot(context, input.path);
        const result = await context.workspace.glob(input.pattern, {
          ...(path === undefined ? {} : { path }),
          limit: globResultLimit,
          signal: context.signal,
        });
        const filenames = result.paths.map((found) => relativizeLine(context.cwd, found));
        return { output: { filenames, durationMs: now() - startedAt, numFiles: filenames.length, truncated: result.truncated } };
      });
    },
    renderResult(output) {
      if (typeof output === "string") return output.replace(/^Error: /, "");
      if (output.filenames.length === 0) return "No files found";
      const lines = [...output.filenames];
      if (output.truncated) lines.push("(Results are truncated. Consider using a more specific path or pattern.)");
      return lines.join("\n");
    },
  };
}

export const globTool = createGlobTool();
