import { z } from "zod";
import { toolInputSchema } from "../input-schema.ts";
import type { Tool, ToolProgress, ToolResult, ToolUseContext } from "../tool.ts";
import type { ExecResult } from "../../workspace/port.ts";
import { streamExec } from "./exec-stream.ts";
import { OutputAccumulator } from "./output-accumulator.ts";
import { looseBoolean, looseNumber } from "./schema-helpers.ts";
import { asWorkspaceError, describeWorkspaceError, interruptedMessage, toolFailure, type ToolFailureOutput } from "./tool-failure.ts";

export const bashLimits = { defaultTimeoutMs: 120_000, maxTimeoutMs: 600_000, maxOutputChars: 30_000 } as const;

export const bashInputSchema = toolInputSchema("Bash", () =>
  z.strictObject({
    command: z.string().min(1).describe("The command to execute"),
    timeout: looseNumber(z.number().int().positive().max(bashLimits.maxTimeoutMs))
      .optional()
      .describe(`Optional timeout in milliseconds (max ${bashLimits.maxTimeoutMs})`),
    description: z
      .string()
      .optional()
      .describe(
        "Clear, concise description of what this command does in 5-10 words, in active voice. Examples:\nInput: ls\nOutput: List files in current directory\n\nInput: git status\nOutput: Show working tree status\n\nInput: npm install\nOutput: Install package dependencies",
      ),
    run_in_background: looseBoolean().optional().describe("Set to true to run this command in the background. Use BashOutput to read the output later."),
  }),
);
export type BashInput = z.infer<typeof bashInputSchema>;

/** What the UI receives while a command runs. */
export type BashProgress = { type: "bash_progress"; stream: "stdout" | "stderr"; chunk: string };

export type BashSuccessOutput = {
  /** stdout and stderr merged in arrival order, as Claude Code shows them. */
  stdout: string;
  /** Notes from the tool itself (timeouts, signals); command stderr is merged into stdout. */
  stderr: string;
  interrupted: boolean;
  isImage: boolean;
  noOutputExpected: boolean;
  exitCode?: number | null;
  signal?: string | null;
  timedOut?: boolean;
  truncated?: boolean;
  cwd?: string;
  sandboxed?: boolean;
  backgroundTaskId?: string;
};
export type BashOutput = BashSuccessOutput | ToolFailureOutput;

export type BashToolOptions = {
  /** Injected by the permission layer: true when a command provably only reads. */
  isReadOnlyCommand?: (command: string) => boolean;
};

const abortedNote = "<error>Command was aborted before completion</error>";
const silentCommands = new Set(["mv", "cp", "rm", "mkdir", "rmdir", "chmod", "chown", "chgrp", "touch", "ln", "cd", "export", "unset", "wait"]);

const description = `Executes a given bash command in a persistent shell session with optional timeout. The working directory and exported variables persist between commands.

Before executing the command:
- If the command will create new directories or files, first use ls to verify the parent directory exists and is the correct location.
- Always quote file paths that contain spaces with double quotes.

Usage notes:
- The command argument is required.
- You can specify an optional timeout in milliseconds (up to ${bashLimits.maxTimeoutMs}ms / ${bashLimits.maxTimeoutMs / 60_000} minutes). If not specified, commands will time out after ${bashLimits.defaultTimeoutMs}ms (${bashLimits.defaultTimeoutMs / 60_000} minutes).
- Write a clear, concise description of what the command does in 5-10 words.
- If the output exceeds ${bashLimits.maxOutputChars} characters, the middle of it is cut before it is returned to you.
- Use run_in_background to run a long-lived command (a dev server, a watcher); read its output with BashOutput and stop it with KillShell.
- Commands run in a sandbox: they can write only inside the workspace, and have no network access unless it was allowed.
- Avoid find, grep, cat, head, tail, sed, awk or echo for tasks the dedicated tools do better: use Glob to find files, Grep to search contents, Read to read files, Edit to edit them and Write to create them.
- When issuing multiple commands, use ';' or '&&' to separate them, not newlines.
- Keep the working directory stable by using absolute paths and avoiding cd where you can.`;

/** Every segment of the command is one of the commands that print nothing when they succeed. */
function isSilentCommand(command: string): boolean {
  const segments = command.split(/&&|\|\||;|\|/).map((segment) => segment.trim().split(/\s+/)[0] ?? "");
  return segments.length > 0 && segments.every((name) => name !== "" && silentCommands.has(name));
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}

function toolNotes(result: ExecResult, timeoutMs: number): string {
  if (result.timedOut) return `Command timed out after ${formatDuration(timeoutMs)}`;
  if (result.exitCode === null && result.signal && !result.interrupted) return `Command was killed by signal ${result.signal}`;
  return "";
}

export function renderBashOutput(output: BashOutput): string {
  if (typeof output === "string") return output.replace(/^Error: /, "");
  if (output.backgroundTaskId) return `Command running in background with ID: ${output.backgroundTaskId}`;
  const parts = [output.stdout.replace(/^(\s*\n)+/, "").trimEnd(), output.stderr.trim(), output.interrupted ? abortedNote : ""];
  const failedWithCode = typeof output.exitCode === "number" && output.exitCode !== 0 && !output.interrupted && !output.timedOut;
  const text = [failedWithCode ? `Exit code ${output.exitCode}` : "", ...parts].filter(Boolean).join("\n");
  return text === "" ? "(Bash completed with no output)" : text;
}

function shellIdOf(context: ToolUseContext): string {
  return context.agentId ?? context.sessionId;
}

async function* runForeground(input: BashInput, context: ToolUseContext): AsyncGenerator<ToolProgress, ToolResult<BashOutput>, void> {
  const timeoutMs = input.timeout ?? bashLimits.defaultTimeoutMs;
  const accumulator = new OutputAccumulator(bashLimits.maxOutputChars);
  let result: ExecResult | undefined;
  const events = streamExec(
    context.workspace,
    input.command,
    { shellId: shellIdOf(context), timeoutMs, maxOutputChars: bashLimits.maxOutputChars },
    context.signal,
  );
  for await (const event of events) {
    if (event.type === "exit") {
      result = event.result;
      continue;
    }
    accumulator.append(event.chunk.data);
    const progress: BashProgress = { type: "bash_progress", stream: event.chunk.stream, chunk: event.chunk.data };
    yield { data: progress };
  }
  if (!result) throw new Error("streamExec ended without a result");
  if (!accumulator.receivedAny) {
    accumulator.append(result.stdout);
    if (result.stderr) accumulator.append(result.stdout && !result.stdout.endsWith("\n") ? `\n${result.stderr}` : result.stderr);
  }
  const interrupted = result.interrupted || (context.signal.aborted && !result.timedOut);
  const output: BashSuccessOutput = {
    stdout: accumulator
      .text()
      .replace(/^(\s*\n)+/, "")
      .trimEnd(),
    stderr: toolNotes(result, timeoutMs),
    interrupted,
    isImage: false,
    noOutputExpected: isSilentCommand(input.command),
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    truncated: result.truncated || accumulator.truncated,
    cwd: result.cwd,
    sandboxed: result.sandboxed,
  };
  return { output, isError: interrupted || result.timedOut || result.exitCode !== 0 };
}

export function createBashTool(options: BashToolOptions = {}): Tool<BashInput, BashOutput> {
  const isReadOnly = (input: BashInput) => options.isReadOnlyCommand?.(input.command) ?? false;
  return {
    name: "Bash",
    inputSchema: bashInputSchema,
    description,
    maxResultChars: bashLimits.maxOutputChars + 2_000,
    isReadOnly,
    isConcurrencySafe: isReadOnly,
    async *call(input, context): AsyncGenerator<ToolProgress, ToolResult<BashOutput>, void> {
      if (context.signal.aborted) return toolFailure(interruptedMessage);
      try {
        if (input.run_in_background) {
          const job = await context.workspace.startBackground(input.command, { shellId: shellIdOf(context) });
          return {
            output: { stdout: "", stderr: "", interrupted: false, isImage: false, noOutputExpected: false, backgroundTaskId: job.id },
          };
        }
        return yield* runForeground(input, context);
      } catch (error) {
        const workspaceError = asWorkspaceError(error);
        if (workspaceError) return toolFailure(describeWorkspaceError(workspaceError, undefined, context));
        if (context.signal.aborted) return toolFailure(interruptedMessage);
        throw error;
      }
    },
    renderResult: renderBashOutput,
  };
}

export const bashTool = createBashTool();
