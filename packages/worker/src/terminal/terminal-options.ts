import { z } from "zod";

// Apart from the worker protocol's terminal schemas (process/protocol-terminal.ts), so a process that runs terminals in
// itself (`cairn -p`'s in-process workspace) does not build the protocol's schemas at start.

export const terminalColsSchema = z.number().int().min(2).max(1000);
export const terminalRowsSchema = z.number().int().min(1).max(500);

/** Where and how large a new shell is; `cwd` (absolute, or relative to the workspace root) must be a directory inside the workspace. */
export const terminalOpenOptionsSchema = z.strictObject({ cols: terminalColsSchema, rows: terminalRowsSchema, cwd: z.string().min(1).max(4096).optional() });
export type TerminalOpenOptions = z.infer<typeof terminalOpenOptionsSchema>;
