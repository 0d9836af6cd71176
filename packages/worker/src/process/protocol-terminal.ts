import { z } from "zod";
import { WorkspaceError } from "@cairn/core/workspace";
import { terminalColsSchema, terminalOpenOptionsSchema, terminalRowsSchema } from "../terminal/terminal-options.ts";

/**
 * The web terminal in the worker protocol. A terminal lives as long as its `terminalOpen` call: the worker
 * streams `terminal` messages for it (first `opened`, then `output` batches) and answers the call with the
 * shell's exit; aborting the call closes the terminal. Input, resize and output acknowledgements are
 * separate small calls naming the terminal. Output is flow-controlled: the worker stops reading the pty
 * while too much output is unacknowledged, so a flood (`yes`) cannot fill the socket or the client's memory.
 */
export const terminalIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "a terminal id is 1 to 64 letters, digits, '_' or '-'")
  .describe("terminal id");
export const terminalExitSchema = z.strictObject({ exitCode: z.number().int().nullable(), signal: z.number().int().nullable() });

/** What the worker streams for an open terminal, tagged with the `terminalOpen` call's id. */
export const terminalEventSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("opened"), cwd: z.string(), sandboxed: z.boolean() }),
  z.strictObject({ type: z.literal("output"), data: z.string() }),
]);
export type TerminalEvent = z.infer<typeof terminalEventSchema>;

/** At most this much input per call, as the API's terminal router allows. */
const MAX_TERMINAL_INPUT_CHARS = 100_000;

const none = z.null();
export const terminalMethodSchemas = {
  terminalOpen: { params: terminalOpenOptionsSchema.extend({ terminalId: terminalIdSchema }), result: terminalExitSchema },
  terminalInput: { params: z.strictObject({ terminalId: terminalIdSchema, data: z.string().max(MAX_TERMINAL_INPUT_CHARS) }), result: none },
  terminalResize: { params: z.strictObject({ terminalId: terminalIdSchema, cols: terminalColsSchema, rows: terminalRowsSchema }), result: none },
  /** The client has taken `chars` more characters of the terminal's output. */
  terminalAck: { params: z.strictObject({ terminalId: terminalIdSchema, chars: z.number().int().positive() }), result: none },
} as const;

export type TerminalMethodName = keyof typeof terminalMethodSchemas;

/** The method's params, or a WorkspaceError saying plainly what is wrong with them. */
export function parseTerminalParams<M extends TerminalMethodName>(method: M, params: unknown): z.infer<(typeof terminalMethodSchemas)[M]["params"]> {
  const parsed = terminalMethodSchemas[method].params.safeParse(params);
  if (parsed.success) return parsed.data as z.infer<(typeof terminalMethodSchemas)[M]["params"]>;
  throw new WorkspaceError("invalid_request", `Invalid ${method} request: ${z.prettifyError(parsed.error).replaceAll("\n", " ")}`);
}
