import { z } from "zod";
import { workspaceErrorCodes } from "@cairn/core/workspace";
import { gitErrorCodes, gitRequestSchema } from "../git/git-protocol.ts";
import { localWorkspaceOptionsSchema } from "../settings.ts";
import { terminalEventSchema, terminalMethodSchemas } from "./protocol-terminal.ts";

/**
 * The JSON-lines protocol between a WorkerProcessWorkspace and its child process: one message per
 * line, every message and every method's params and result validated on arrival.
 */
const fileKindSchema = z.enum(["file", "directory", "symlink", "other"]);
const fileStatSchema = z.object({ path: z.string(), kind: fileKindSchema, size: z.number(), mtimeMs: z.number(), mode: z.number() });
const dirEntrySchema = z.object({ name: z.string(), path: z.string(), kind: fileKindSchema });
const outputModeSchema = z.enum(["content", "files_with_matches", "count"]);
const count = z.number().int().nonnegative();
const grepQuerySchema = z.strictObject({
  pattern: z.string(),
  path: z.string().optional(),
  glob: z.string().optional(),
  type: z.string().optional(),
  outputMode: outputModeSchema,
  before: count.optional(),
  after: count.optional(),
  context: count.optional(),
  lineNumbers: z.boolean().optional(),
  caseInsensitive: z.boolean().optional(),
  multiline: z.boolean().optional(),
  headLimit: count.optional(),
});
const grepResultSchema = z.object({
  mode: outputModeSchema,
  lines: z.array(z.string()),
  files: count,
  matches: count,
  truncated: z.boolean(),
  engine: z.enum(["ripgrep", "javascript"]),
});
const execResultSchema = z.object({
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  timedOut: z.boolean(),
  interrupted: z.boolean(),
  truncated: z.boolean(),
  cwd: z.string(),
  sandboxed: z.boolean(),
});
export const outputChunkSchema = z.object({ stream: z.enum(["stdout", "stderr"]), data: z.string() });
const backgroundJobSchema = z.object({
  id: z.string(),
  command: z.string(),
  startedAt: z.number(),
  status: z.enum(["running", "exited", "killed"]),
  exitCode: z.number().int().nullable(),
});
const backgroundOutputSchema = backgroundJobSchema.extend({ stdout: z.string(), stderr: z.string(), truncated: z.boolean().optional() });
export const watchEventSchema = z.object({ type: z.enum(["change", "rename"]), path: z.string() });
const pathParams = z.strictObject({ path: z.string() });
const none = z.null();

export const methodSchemas = {
  resolve: { params: pathParams, result: z.string() },
  stat: { params: pathParams, result: fileStatSchema.nullable() },
  readFile: { params: pathParams, result: z.base64() },
  writeFile: {
    params: z.strictObject({
      path: z.string(),
      data: z.discriminatedUnion("encoding", [
        z.strictObject({ encoding: z.literal("utf8"), value: z.string() }),
        z.strictObject({ encoding: z.literal("base64"), value: z.base64() }),
      ]),
    }),
    result: fileStatSchema,
  },
  list: { params: pathParams, result: z.array(dirEntrySchema) },
  mkdir: { params: pathParams, result: none },
  remove: { params: pathParams, result: none },
  rename: { params: z.strictObject({ from: z.string(), to: z.string() }), result: none },
  glob: {
    params: z.strictObject({ pattern: z.string(), path: z.string().optional(), limit: count }),
    result: z.object({ paths: z.array(z.string()), truncated: z.boolean() }),
  },
  grep: { params: z.strictObject({ query: grepQuerySchema }), result: grepResultSchema },
  exec: {
    params: z.strictObject({
      command: z.string(),
      shellId: z.string(),
      timeoutMs: z.number().positive(),
      maxOutputChars: count.optional(),
      streamOutput: z.boolean(),
    }),
    result: execResultSchema,
  },
  startBackground: { params: z.strictObject({ command: z.string(), shellId: z.string() }), result: backgroundJobSchema },
  readBackground: { params: z.strictObject({ id: z.string() }), result: backgroundOutputSchema },
  killBackground: { params: z.strictObject({ id: z.string() }), result: backgroundJobSchema },
  /** One operation on the workspace's git repository; the result is validated per operation by the caller. */
  git: { params: z.strictObject({ request: gitRequestSchema }), result: z.unknown() },
  /** Streams `event` messages until aborted, then answers null. */
  watch: { params: z.strictObject({}), result: none },
  dispose: { params: z.strictObject({}), result: none },
  ...terminalMethodSchemas,
} as const;

export type MethodName = keyof typeof methodSchemas;
export type MethodParams<M extends MethodName> = z.infer<(typeof methodSchemas)[M]["params"]>;
export type MethodResult<M extends MethodName> = z.infer<(typeof methodSchemas)[M]["result"]>;
const methodNames = Object.keys(methodSchemas) as [MethodName, ...MethodName[]];

/** `gitCode`: the error was a GitError (its code survives the boundary; `code` is then io_error). */
export const wireErrorSchema = z.object({
  code: z.enum(workspaceErrorCodes),
  message: z.string(),
  path: z.string().optional(),
  gitCode: z.enum(gitErrorCodes).optional(),
});
export type WireError = z.infer<typeof wireErrorSchema>;

const id = z.number().int().nonnegative();

export const parentMessageSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("init"), options: localWorkspaceOptionsSchema }),
  // Params stay unknown here and are validated against the method's own schema by the child.
  z.strictObject({ type: z.literal("call"), id, method: z.enum(methodNames), params: z.unknown() }),
  z.strictObject({ type: z.literal("abort"), id }),
]);
export type ParentMessage = z.infer<typeof parentMessageSchema>;

export const childMessageSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("ready"), root: z.string() }),
  z.strictObject({ type: z.literal("init_failed"), error: wireErrorSchema }),
  z.strictObject({ type: z.literal("result"), id, value: z.unknown() }),
  z.strictObject({ type: z.literal("error"), id, error: wireErrorSchema }),
  z.strictObject({ type: z.literal("output"), id, chunk: outputChunkSchema }),
  z.strictObject({ type: z.literal("event"), id, event: watchEventSchema }),
  z.strictObject({ type: z.literal("terminal"), id, event: terminalEventSchema }),
]);
export type ChildMessage = z.infer<typeof childMessageSchema>;

/** One line of JSON, or undefined if the line is not a valid message. */
export function decodeLine<T>(schema: z.ZodType<T>, line: string): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export function encodeLine(message: ParentMessage | ChildMessage): string {
  return `${JSON.stringify(message)}\n`;
}
