import { readFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { exportTranscript, importClaudeCodeTranscript, readClaudeCodeTranscript, type ExportFormat } from "@cairn/core/node";
import { readEnv } from "../env.ts";

/** What a `cairn` sub-command gets from `main`: output sinks and the environment (read through env.ts). */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
}

export class CommandUsageError extends Error {
  readonly code = "usage";
  constructor(message: string) {
    super(message);
    this.name = "CommandUsageError";
  }
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Strict parsing: unknown flags are usage errors rather than silently ignored. */
export function parseCommandArgs<T extends Options>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CommandUsageError((error as Error).message);
  }
}

/** Written on every transcript line, as Claude Code writes its own version. */
export function cairnVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}

export const TRANSCRIPT_HELP = `Usage:
  cairn transcript import <file.jsonl> [--cwd <dir>] [--session-id <id>] [--database-url <url>]
      Import a Claude Code transcript as a Cairn session (filed under the directory it records, or --cwd).
      With --database-url or CAIRN_DATABASE_URL (distributed mode) it is written to PostgreSQL, where every node
      lists it, instead of a JSONL file.
  cairn transcript export <session-id> --format jsonl|markdown [--cwd <dir>]
      Print a session's conversation.
`;

const FORMATS: readonly ExportFormat[] = ["jsonl", "markdown"];

/** `cairn transcript import|export …`; returns the exit code (0 ok, 1 failed, 2 usage). */
export async function runTranscriptCommand(argv: string[], io: CommandIo): Promise<number> {
  try {
    const [subcommand, ...rest] = argv;
    const { cairnHome, distributed } = readEnv(io.env);
    switch (subcommand) {
      case "import":
        return await runImport(rest, io, cairnHome, distributed.databaseUrl);
      case "export":
        return await runExport(rest, io, cairnHome);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout(TRANSCRIPT_HELP);
        return subcommand === undefined ? 2 : 0;
      default:
        throw new CommandUsageError(`unknown transcript command "${subcommand}"`);
    }
  } catch (error) {
    if (error instanceof CommandUsageError) {
      io.stderr(`cairn transcript: ${error.message}\n${TRANSCRIPT_HELP}`);
      return 2;
    }
    io.stderr(`cairn transcript: ${(error as Error).message}\n`);
    return 1;
  }
}

async function runImport(argv: string[], io: CommandIo, cairnHome: string, envDatabaseUrl: string | undefined): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    cwd: { type: "string" },
    "session-id": { type: "string" },
    "database-url": { type: "string" },
  });
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) throw new CommandUsageError("import takes exactly one file");
  const databaseUrl = values["database-url"] ?? envDatabaseUrl;
  if (databaseUrl !== undefined) {
    // Distributed mode: rows in PostgreSQL, filed under the workspace as a node names it (its real path).
    const cwd = values.cwd === undefined ? undefined : await realpath(resolve(values.cwd)).catch(() => resolve(values.cwd ?? "."));
    const { session, report } = await readClaudeCodeTranscript(file, {
      ...(cwd === undefined ? {} : { cwd }),
      ...(values["session-id"] === undefined ? {} : { sessionId: values["session-id"] }),
    });
    const { importSessionToDatabase } = await import("@cairn/api");
    const where = await importSessionToDatabase(databaseUrl, session, cairnVersion());
    io.stdout(`Imported ${session.messages.length} messages as session ${session.sessionId}\n  ${where} (workspace ${session.cwd})\n`);
    reportSkipped(io, report);
    return 0;
  }
  const result = await importClaudeCodeTranscript(file, {
    cairnHome,
    version: cairnVersion(),
    ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
    ...(values["session-id"] === undefined ? {} : { sessionId: values["session-id"] }),
  });
  io.stdout(`Imported ${result.messageCount} messages as session ${result.sessionId}\n  ${result.path}\n`);
  reportSkipped(io, result.report);
  return 0;
}

function reportSkipped(io: CommandIo, report: { malformedLines: number; tornTail: boolean }): void {
  if (report.malformedLines > 0 || report.tornTail) {
    io.stderr(`cairn transcript: skipped ${report.malformedLines} malformed line(s)${report.tornTail ? " and a torn last line" : ""}\n`);
  }
}

async function runExport(argv: string[], io: CommandIo, cairnHome: string): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    format: { type: "string", default: "jsonl" },
    cwd: { type: "string" },
  });
  const [sessionId, ...extra] = positionals;
  if (sessionId === undefined || extra.length > 0) throw new CommandUsageError("export takes exactly one session id");
  const format = FORMATS.find((candidate) => candidate === values.format);
  if (format === undefined) throw new CommandUsageError(`--format must be jsonl or markdown, not "${values.format}"`);
  const chunks = exportTranscript(sessionId, format, {
    cairnHome,
    ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
  });
  for await (const chunk of chunks) io.stdout(chunk);
  return 0;
}
