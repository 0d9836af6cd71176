import { z } from "zod";
import { toolInputSchema } from "../input-schema.ts";
import type { Tool, ToolResult, ToolUseContext } from "../tool.ts";
import type { BackgroundJob } from "../../workspace/port.ts";
import { bashLimits } from "./bash.ts";
import { OutputAccumulator } from "./output-accumulator.ts";
import { asWorkspaceError, describeWorkspaceError, toolFailure, withToolFailures, type ToolFailureOutput } from "./tool-failure.ts";

export const bashOutputInputSchema = toolInputSchema("BashOutput", () =>
  z.strictObject({
    bash_id: z.string().min(1).describe("The ID of the background shell to retrieve output from"),
    filter: z
      .string()
      .optional()
      .describe(
        "Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read.",
      ),
  }),
);
export type BashOutputInput = z.infer<typeof bashOutputInputSchema>;

export type BackgroundStatus = "running" | "completed" | "failed" | "killed";

export type BashOutputSuccess = {
  shellId: string;
  command: string;
  status: BackgroundStatus;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  stdoutLines: number;
  stderrLines: number;
  timestamp: string;
  filterPattern?: string;
};
export type BashOutputOutput = BashOutputSuccess | ToolFailureOutput;

export const killShellInputSchema = toolInputSchema("KillShell", () =>
  z.strictObject({
    shell_id: z.string().min(1).describe("The ID of the background shell to kill"),
  }),
);
export type KillShellInput = z.infer<typeof killShellInputSchema>;
export type KillShellOutput = { message: string; shell_id: string } | ToolFailureOutput;

function statusOf(job: Pick<BackgroundJob, "status" | "exitCode">): BackgroundStatus {
  if (job.status === "running") return "running";
  if (job.status === "killed") return "killed";
  return job.exitCode === 0 ? "completed" : "failed";
}

function noSuchShell(id: string, error: unknown, context: ToolUseContext): ToolResult<never> | undefined {
  const workspaceError = asWorkspaceError(error);
  if (!workspaceError) return undefined;
  if (workspaceError.code === "not_found") return toolFailure(`No shell found with ID: ${id}`) as ToolResult<never>;
  return toolFailure(describeWorkspaceError(workspaceError, undefined, context)) as ToolResult<never>;
}

function countLines(text: string): number {
  return text === "" ? 0 : text.replace(/\n$/, "").split("\n").length;
}

function capped(text: string): string {
  const accumulator = new OutputAccumulator(bashLimits.maxOutputChars);
  accumulator.append(text);
  return accumulator.text();
}

/** `BashOutput` returns only what a background command printed since the last check: the port's readBackground is incremental. */
export function createBashOutputTool(options: { now?: () => number } = {}): Tool<BashOutputInput, BashOutputOutput> {
  const now = options.now ?? Date.now;
  return {
    name: "BashOutput",
    inputSchema: bashOutputInputSchema,
    description:
      "- Retrieves output from a running or completed background bash shell\n- Takes a bash_id parameter identifying the shell\n- Always returns only new output since the last check\n- Returns stdout and stderr output along with shell status\n- Supports optional regex filtering to show only lines matching a pattern\n- Use this tool when you need to monitor or check the output of a long-running shell",
    maxResultChars: bashLimits.maxOutputChars * 2 + 2_000,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async checkPermissions() {
      return { behavior: "allow", reason: { type: "tool", reason: "Reading a background command's output needs no permission" } };
    },
    async validateInput(input) {
      if (input.filter === undefined) return { ok: true };
      try {
        new RegExp(input.filter);
        return { ok: true };
      } catch (error) {
        return { ok: false, code: "invalid_filter", message: `Invalid regular expression in filter: ${(error as Error).message}` };
      }
    },
    async call(input, context) {
      return withToolFailures(context, undefined, async (): Promise<ToolResult<BashOutputOutput>> => {
        let job;
        try {
          job = await context.workspace.readBackground(input.bash_id);
        } catch (error) {
          const failure = noSuchShell(input.bash_id, error, context);
          if (failure) return failure;
          throw error;
        }
        let { stdout, stderr } = job;
        if (input.filter !== undefined) {
          const pattern = new RegExp(input.filter);
          const keep = (text: string) =>
            text
              .split("\n")
              .filter((line) => pattern.test(line))
              .join("\n");
          stdout = keep(stdout);
          stderr = keep(stderr);
        }
        return {
          output: {
            shellId: job.id,
            command: job.command,
            status: statusOf(job),
            exitCode: job.exitCode,
            stdout: capped(stdout.trimEnd()),
            stderr: capped(stderr.trimEnd()),
            stdoutLines: countLines(stdout),
            stderrLines: countLines(stderr),
            timestamp: new Date(now()).toISOString(),
            ...(input.filter === undefined ? {} : { filterPattern: input.filter }),
          },
        };
      });
    },
    renderResult(output) {
      if (typeof output === "string") return output.replace(/^Error: /, "");
      const parts = [`<status>${output.status}</status>`];
      if (output.exitCode !== null) parts.push(`<exit_code>${output.exitCode}</exit_code>`);
      if (output.stdout) parts.push(`<stdout>\n${output.stdout}\n</stdout>`);
      if (output.stderr) parts.push(`<stderr>\n${output.stderr}\n</stderr>`);
      parts.push(`<timestamp>${output.timestamp}</timestamp>`);
      return parts.join("\n\n");
    },
  };
}

export function createKillShellTool(): Tool<KillShellInput, KillShellOutput> {
  return {
    name: "KillShell",
    inputSchema: killShellInputSchema,
    description:
      "- Kills a running background bash shell by its ID\n- Takes a shell_id parameter identifying the shell to kill\n- Returns a success or failure status\n- Use this tool when you need to terminate a long-running shell",
    maxResultChars: 2_000,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    async checkPermissions() {
      return { behavior: "allow", reason: { type: "tool", reason: "Stopping a background command this session started needs no permission" } };
    },
    async call(input, context) {
      return withToolFailures(context, undefined, async (): Promise<ToolResult<KillShellOutput>> => {
        let job;
        try {
          job = await context.workspace.killBackground(input.shell_id);
        } catch (error) {
          const failure = noSuchShell(input.shell_id, error, context);
          if (failure) return failure;
          throw error;
        }
        const message =
          job.status === "exited"
            ? `Shell ${input.shell_id} is not running (status: ${statusOf(job)})`
            : `Successfully killed shell: ${input.shell_id} (${job.command})`;
        return { output: { message, shell_id: input.shell_id } };
      });
    },
    renderResult: (output) => (typeof output === "string" ? output.replace(/^Error: /, "") : JSON.stringify(output)),
  };
}

export const bashOutputTool = createBashOutputTool();
export const killShellTool = createKillShellTool();
