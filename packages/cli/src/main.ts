import { z } from "zod";
import { parsePrintArgs, printRequest, UsageError } from "./args.ts";
import { readEnv } from "./env.ts";
import { cliVersion } from "./version.ts";

export const HELP = `cairn — a self-hosted coding agent

Usage:
  cairn serve [--host 127.0.0.1] [--port 3000] [--workspace <dir>]   start the web IDE
  cairn -p "<prompt>" [options]                                      run one prompt headless (like claude -p)
  cairn transcript import <file.jsonl>                               import a Claude Code transcript
  cairn transcript export <session-id> --format jsonl|markdown       export a session
  cairn rewind <session-id> <message-uuid> [--mode files|conversation|both]
  cairn worker --listen <host:port> --root <dir> [--tls-cert <f> --tls-key <f>]  serve workspaces to API nodes

Print mode options:
  --output-format text|json|stream-json   --verbose   --model <name>   --fallback-model <name>
  --permission-mode default|acceptEdits|plan|auto|bypassPermissions   --plan-model <name> (model while planning)
  --allowedTools "Read Bash(git status:*)"   --disallowedTools "Bash(rm:*)"   --tools "Read,Grep"
  --settings <file or JSON>   --mcp-config <file or JSON>   --max-turns <n>   --task-budget <tokens>
  --resume <session-id>   --continue   --fork-session   --version

Environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, CAIRN_HOME (default ~/.cairn), CAIRN_MODEL,
CAIRN_MAX_TOOL_USE_CONCURRENCY (default 10), CAIRN_DISABLE_PROMPT_CACHING=1, CAIRN_MAX_THINKING_TOKENS (0 = off),
CAIRN_DUMP_PROMPTS=1 (latest request body per conversation in $CAIRN_HOME/debug/).
Without ANTHROPIC_API_KEY an offline demo model answers.
`;

async function readStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function main(argv: string[]): Promise<number> {
  const stdout = (text: string) => void process.stdout.write(text);
  const stderr = (text: string) => void process.stderr.write(text);
  const [command, ...rest] = argv;
  try {
    if (command === "serve") {
      const { runServe } = await import("./serve.ts");
      return await runServe(rest, readEnv(), { stdout, stderr });
    }
    if (command === "transcript") {
      const { runTranscriptCommand } = await import("./commands/transcript.ts");
      return await runTranscriptCommand(rest, { stdout, stderr, env: process.env });
    }
    if (command === "worker") {
      const { runWorkerCommand } = await import("./commands/worker.ts");
      return await runWorkerCommand(rest, { stdout, stderr, env: process.env });
    }
    if (command === "rewind") {
      const { runRewindCommand } = await import("./commands/rewind.ts");
      return await runRewindCommand(rest, { stdout, stderr, env: process.env });
    }
    const request = printRequest(argv);
    const wantsPrint = request.print;
    const stdinPrompt = wantsPrint && !request.hasPrompt ? await readStdin() : undefined;
    const parsed = parsePrintArgs(argv, stdinPrompt);
    if ("version" in parsed) {
      stdout(`${cliVersion()} (Cairn)\n`);
      return 0;
    }
    if ("help" in parsed || !wantsPrint) {
      stdout(HELP);
      return "help" in parsed ? 0 : 2;
    }
    // A one-shot run parses each shape a few times: zod's JIT (a parser compiled with `new Function` at an object
    // schema's first parse) costs more than it saves. Set before print.ts's schemas are built (they read it then).
    z.config({ jitless: true });
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
      const { runPrintMode } = await import("./print.ts");
      return await runPrintMode(parsed, readEnv(), { stdout, stderr, cwd: process.cwd(), signal: controller.signal }, cliVersion());
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      stderr(`cairn: ${error.message}\n`);
      return 2;
    }
    stderr(`cairn: ${(error as Error).message}\n`);
    return 1;
  }
}
