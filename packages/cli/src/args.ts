import { parseArgs } from "node:util";
import { z } from "zod";
import { permissionModeSchema } from "@cairn/core/schema";

export const outputFormatSchema = z.enum(["text", "json", "stream-json"]);

const printOptions = {
  print: { type: "boolean", short: "p", default: false },
  "output-format": { type: "string", default: "text" },
  verbose: { type: "boolean", default: false },
  "permission-mode": { type: "string" },
  allowedTools: { type: "string", multiple: true },
  "allowed-tools": { type: "string", multiple: true },
  disallowedTools: { type: "string", multiple: true },
  "disallowed-tools": { type: "string", multiple: true },
  tools: { type: "string" },
  settings: { type: "string" },
  "mcp-config": { type: "string", multiple: true },
  model: { type: "string" },
  "plan-model": { type: "string" },
  "fallback-model": { type: "string" },
  "max-turns": { type: "string" },
  "task-budget": { type: "string" },
  resume: { type: "string", short: "r" },
  continue: { type: "boolean", short: "c", default: false },
  "fork-session": { type: "boolean", default: false },
  "session-id": { type: "string" },
  version: { type: "boolean", short: "v", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

export type PrintArgs = {
  prompt: string;
  outputFormat: z.infer<typeof outputFormatSchema>;
  verbose: boolean;
  permissionMode: z.infer<typeof permissionModeSchema> | undefined;
  allowedTools: string[];
  disallowedTools: string[];
  /** `--tools`: the only built-in tools offered to the model; undefined = all. */
  tools: string[] | undefined;
  settings: string | undefined;
  mcpConfig: string[];
  model: string | undefined;
  /** `--plan-model`: the model used while in plan mode. */
  planModel: string | undefined;
  fallbackModel: string | undefined;
  maxTurns: number | undefined;
  /** `--task-budget <tokens>`: sent as the API's task_budget. */
  taskBudget: number | undefined;
  resume: string | undefined;
  continueLast: boolean;
  forkSession: boolean;
  sessionId: string | undefined;
};

export class UsageError extends Error {
  override readonly name = "UsageError";
  readonly code = "usage";
}

/** Claude Code accepts tool lists space- or comma-separated, in one flag or many. */
function splitToolList(values: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const value of values ?? []) {
    let depth = 0;
    let current = "";
    for (const char of value) {
      if (char === "(") depth++;
      if (char === ")") depth = Math.max(0, depth - 1);
      if ((char === "," || char === " ") && depth === 0) {
        if (current.trim()) out.push(current.trim());
        current = "";
        continue;
      }
      current += char;
    }
    if (current.trim()) out.push(current.trim());
  }
  return out;
}

/** Whether the command line asks for print mode, and whether it carries the prompt itself (else it comes on stdin). */
export function printRequest(argv: string[]): { print: boolean; hasPrompt: boolean } {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: printOptions, allowPositionals: true, strict: false });
    return { print: values.print === true, hasPrompt: positionals.length > 0 };
  } catch {
    return { print: argv.includes("-p") || argv.includes("--print"), hasPrompt: true };
  }
}

export function parsePrintArgs(argv: string[], stdinPrompt: string | undefined): PrintArgs | { version: true } | { help: true } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: printOptions, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.version) return { version: true };
  if (values.help) return { help: true };
  const text = positionals.join(" ").trim() || stdinPrompt?.trim() || "";
  if (!text) throw new UsageError('No prompt given. Usage: cairn -p "<prompt>" (or pipe the prompt on stdin).');
  const format = outputFormatSchema.safeParse(values["output-format"]);
  if (!format.success) throw new UsageError(`--output-format must be one of text, json, stream-json (got "${values["output-format"]}")`);
  const mode = values["permission-mode"] === undefined ? undefined : permissionModeSchema.safeParse(values["permission-mode"]);
  if (mode && !mode.success) throw new UsageError(`--permission-mode must be one of ${permissionModeSchema.options.join(", ")}`);
  const maxTurns = values["max-turns"] === undefined ? undefined : Number(values["max-turns"]);
  if (maxTurns !== undefined && (!Number.isInteger(maxTurns) || maxTurns < 1)) throw new UsageError("--max-turns must be a positive integer");
  const taskBudget = values["task-budget"] === undefined ? undefined : Number(values["task-budget"]);
  if (taskBudget !== undefined && (!Number.isInteger(taskBudget) || taskBudget < 1)) throw new UsageError("--task-budget must be a positive number of tokens");
  return {
    prompt: text,
    outputFormat: format.data,
    verbose: values.verbose,
    permissionMode: mode?.success ? mode.data : undefined,
    allowedTools: splitToolList([...(values.allowedTools ?? []), ...(values["allowed-tools"] ?? [])]),
    disallowedTools: splitToolList([...(values.disallowedTools ?? []), ...(values["disallowed-tools"] ?? [])]),
    tools: values.tools === undefined ? undefined : splitToolList([values.tools]),
    settings: values.settings,
    mcpConfig: values["mcp-config"] ?? [],
    model: values.model,
    planModel: values["plan-model"],
    fallbackModel: values["fallback-model"],
    maxTurns,
    taskBudget,
    resume: values.resume,
    continueLast: values.continue,
    forkSession: values["fork-session"],
    sessionId: values["session-id"],
  };
}
