import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import {
  checkBypassPermissionsAllowed,
  dispatchSessionEnd,
  grantSkillTools,
  manualCompaction,
  useSkillModel,
  productionDeps,
  renderSkillPrompt,
  renderSlashHelp,
  renderSlashPrompt,
  repairForResume,
  resolveSlashCommand,
  runPrompt,
  type AgentEvent,
  type ConversationMessage,
} from "@cairn/core";
import { assertSessionId, createCheckpointStore, listTranscriptFiles, loadTranscript, sessionTranscriptPath } from "@cairn/core/node";
import { checkpointingGate, createRuntime, type Runtime, type SessionWiring } from "@cairn/api/runtime";
import type { PrintArgs } from "./args.ts";
import { createPendingSessionTelemetry, type Telemetry, type TelemetryHandle, type TurnTelemetry } from "@cairn/api/telemetry";
import type { CliEnv } from "./env.ts";
import { eventToLine, initLine, resultLine } from "./stream-json.ts";

export type CliIo = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  signal: AbortSignal;
};

/**
 * `cairn -p`: one prompt, run to the end without a person. Running it in a directory trusts that
 * directory, as `claude -p` does. A permission `ask` becomes a denial the model is told about.
 */
export async function runPrintMode(args: PrintArgs, env: CliEnv, io: CliIo, version: string): Promise<number> {
  const telemetry = env.telemetry ? lazyTelemetry(env.telemetry, io, version) : undefined;
  try {
    return await runWithRuntime(args, env, io, version, telemetry);
  } finally {
    await telemetry?.shutdown();
  }
}

type LazyTelemetry = ReturnType<typeof lazyTelemetry>;

/** Long enough that a `cairn -p` run sends its spans and log records once, at exit (a full batch still goes at once). */
const PRINT_BATCH_DELAY_MS = 10 * 60_000;

/**
 * Telemetry (CAIRN_ENABLE_TELEMETRY=1) for one run. The SDK is loaded only when `start` is first called (once the
 * first model request is on its way, so its loading overlaps the model's answer instead of delaying the request),
 * and events seen before then are replayed with their times. Spans and log records go out in one batch per signal at
 * exit. A failure to start or to export costs the run a warning, not the run.
 */
function lazyTelemetry(config: NonNullable<CliEnv["telemetry"]>, io: CliIo, version: string) {
  let starting: Promise<TelemetryHandle | undefined> | undefined;
  let used = false;
  let resolveReady: (telemetry: Telemetry | undefined) => void = () => undefined;
  const ready = new Promise<Telemetry | undefined>((resolve) => (resolveReady = resolve));
  const start = () => {
    if (starting) return starting;
    starting = import("@cairn/api/telemetry")
      .then(({ startTelemetry }) =>
        startTelemetry(config, { serviceVersion: version, warn: (message) => io.stderr(`cairn: ${message}\n`), batchDelayMs: PRINT_BATCH_DELAY_MS }),
      )
      .catch((error: unknown) => {
        io.stderr(`cairn: telemetry: could not start: ${(error as Error).message}\n`);
        return undefined;
      });
    void starting.then((handle) => resolveReady(handle?.telemetry));
    return starting;
  };
  return {
    session(sessionId: string) {
      used = true;
      return createPendingSessionTelemetry(ready, { sessionId });
    },
    start,
    async shutdown() {
      if (!used && !starting) return;
      await (await start())?.shutdown();
    },
  };
}

async function runWithRuntime(args: PrintArgs, env: CliEnv, io: CliIo, version: string, lazy: LazyTelemetry | undefined): Promise<number> {
  let runtime: Runtime;
  try {
    runtime = await createRuntime({
      workspaceRoot: io.cwd,
      cairnHome: env.cairnHome,
      version,
      apiKey: env.apiKey,
      baseURL: env.baseURL,
      model: args.model ?? env.model,
      planModel: args.planModel,
      fallbackModel: args.fallbackModel ?? env.fallbackModel,
      flagSettings: args.settings,
      allowedTools: args.allowedTools,
      disallowedTools: args.disallowedTools,
      permissionMode: args.permissionMode,
      toolNames: args.tools,
      trusted: true,
      maxToolConcurrency: env.maxToolConcurrency,
      promptCaching: env.promptCaching,
      maxThinkingTokens: env.maxThinkingTokens,
      dumpPrompts: env.dumpPrompts,
      maxRetries: env.maxRetries,
      contextWindow: env.contextWindow,
      autoCompactPct: env.autoCompactPct,
      autoCompact: env.autoCompact,
      mcpConfig: args.mcpConfig,
      taskBudget: args.taskBudget,
    });
  } catch (error) {
    io.stderr(`cairn: could not start: ${(error as Error).message}\n`);
    return 1;
  }
  try {
    for (const problem of runtime.settings.problems) {
      io.stderr(`cairn: settings problem in ${problem.file}${problem.path ? ` at ${problem.path}` : ""}: ${problem.message}\n`);
    }
    for (const problem of runtime.mcp.problems) {
      io.stderr(
        `cairn: MCP config problem${problem.file ? ` in ${problem.file}` : ""}${problem.server ? ` (server "${problem.server}")` : ""}: ${problem.message}\n`,
      );
    }
    for (const server of runtime.mcp.servers()) {
      if (server.status.state === "failed") io.stderr(`cairn: MCP server "${server.name}" failed to start: ${server.status.reason}\n`);
      if (server.status.state === "connected" && server.status.warning) io.stderr(`cairn: MCP server "${server.name}": ${server.status.warning}\n`);
    }
    for (const problem of runtime.agents.problems) io.stderr(`cairn: agent definition problem in ${problem.path}: ${problem.message}\n`);
    if (runtime.model.demo && args.outputFormat === "text") {
      io.stderr("cairn: no ANTHROPIC_API_KEY is set, so the offline demo model answers (it knows a few commands only).\n");
    }
    if (runtime.store.getState().permissionMode === "bypassPermissions") {
      const check = checkBypassPermissionsAllowed({
        uid: process.getuid?.(),
        sandboxed: runtime.settings.merged.sandbox.enabled ?? true,
        disabledBySettings: runtime.settings.merged.permissions.disableBypassPermissionsMode,
      });
      if (!check.ok) {
        io.stderr(`cairn: ${check.reason}\n`);
        return 1;
      }
    }
    // The git snapshot, the memory files and the skill catalog are read while the session is resolved.
    const contextLoading = runtime.sessionContext(runtime.model.model);
    const catalogLoading = contextLoading.then((context) => context.memory.skills());
    catalogLoading.catch(() => undefined);
    const resumed = await resolveSession(args, runtime);
    const sessionId = args.forkSession || !resumed ? (args.sessionId ?? crypto.randomUUID()) : resumed.sessionId;
    const wiring = runtime.session(sessionId);
    if (args.forkSession && resumed) {
      for (const message of resumed.history) await wiring.sink.appendMessage(message);
    }
    const history = resumed?.history ?? [];
    const tools = runtime.toolsFor(history);
    const emit = (line: object) => io.stdout(`${JSON.stringify(line)}\n`);
    if (args.outputFormat === "stream-json") {
      emit(
        initLine({
          sessionId,
          cwd: runtime.workspaceRoot,
          tools: tools.map((tool) => tool.name),
          model: runtime.model.model,
          permissionMode: runtime.store.getState().permissionMode,
          demo: runtime.model.demo,
          mcpServers: runtime.mcp
            .servers()
            .map((server) => ({ name: server.name, status: server.status.state === "connecting" ? "pending" : server.status.state })),
        }),
      );
    }

    const { systemPrompt, memory } = await contextLoading;
    const catalog = await catalogLoading;
    if (args.verbose)
      for (const problem of catalog.problems) io.stderr(`cairn: ${problem.kind} /${problem.name} is invalid (${problem.path}): ${problem.reason}\n`);
    let prompt = args.prompt;
    const slash = resolveSlashCommand(args.prompt, catalog);
    if (slash?.kind === "error") {
      io.stderr(`cairn: ${slash.message}\n`);
      return 2;
    }
    if (slash?.kind === "builtin") {
      switch (slash.name) {
        case "compact":
          return await runManualCompaction({ runtime, wiring, history, instructions: slash.args || undefined, sessionId, args, io, emit });
        case "help":
          return finishWithText(renderSlashHelp(catalog), { args, io, emit, sessionId });
        case "clear":
          return finishWithText("Nothing to clear: each cairn -p run starts a new session unless --resume or --continue is given.", {
            args,
            io,
            emit,
            sessionId,
          });
        case "model":
          io.stderr("cairn: /model switches the model of an IDE session; with cairn -p use --model <name>\n");
          return 2;
      }
    }
    if (slash?.kind === "skill") {
      const body = await memory.skillBody(slash.skill);
      if (body === null) {
        io.stderr(`cairn: /${slash.skill.name}: could not read ${slash.skill.path}\n`);
        return 1;
      }
      prompt = renderSlashPrompt(slash.skill, slash.args, renderSkillPrompt(slash.skill, body, slash.args));
      grantSkillTools(slash.skill, { getAppState: runtime.store.getState, setAppState: runtime.store.setState }, memory.grants);
      useSkillModel(slash.skill, { getAppState: runtime.store.getState, setAppState: runtime.store.setState });
    }

    // A checkpoint of the files just before the turn's first change, so `cairn rewind` can undo what the
    // turn changes (Bash included); a turn that changes nothing spawns no git.
    const checkpoints = createCheckpointStore({ cairnHome: runtime.cairnHome, workspaceRoot: runtime.workspaceRoot });
    let promptUuid: string | undefined;
    let checkpointed: Promise<void> | undefined;
    const takeCheckpoint = (): Promise<void> => {
      if (!promptUuid) return Promise.resolve();
      const messageUuid = promptUuid;
      checkpointed ??= checkpoints
        .snapshot(`before prompt ${messageUuid}`, { signal: io.signal })
        .then((commit) => wiring.sink.appendCheckpoint(messageUuid, commit))
        .catch((error: Error) => io.stderr(`cairn: no file checkpoint for this turn: ${error.message}\n`));
      return checkpointed;
    };
    const gate = checkpointingGate(runtime.gate, takeCheckpoint);

    let finalText = "";
    let result: Extract<AgentEvent, { type: "result" }> | undefined;
    let turnTelemetry: TurnTelemetry | undefined;
    if (lazy) {
      const sessionTelemetry = lazy.session(sessionId);
      sessionTelemetry.started();
      turnTelemetry = sessionTelemetry.turn(args.prompt);
    }
    const events = runPrompt({
      history,
      prompt,
      sink: wiring.sink,
      sessionStart: resumed ? "resume" : "startup",
      systemPrompt,
      memory,
      tools,
      model: runtime.model.model,
      ...(runtime.planModel ? { planModel: runtime.planModel } : {}),
      ...(runtime.fallbackModel ? { fallbackModel: runtime.fallbackModel } : {}),
      ...(args.maxTurns ? { maxTurns: args.maxTurns } : {}),
      ...(runtime.settings.merged.context.tokenBudget ? { tokenBudget: runtime.settings.merged.context.tokenBudget } : {}),
      // As `claude -p`: the run ends only after the background agents it started have reported.
      awaitBackgroundAgents: true,
      signal: io.signal,
      context: {
        sessionId,
        cwd: runtime.workspaceRoot,
        workspace: runtime.workspace,
        readFileState: new Map(),
        getAppState: runtime.store.getState,
        setAppState: runtime.store.setState,
        services: runtime.sessionServices({ gate, hooks: wiring.hooks, memory, sessionId }),
      },
      gate,
      hooks: wiring.hooks,
      deps: { ...productionDeps(runtime.modelClient(sessionId)), compactor: wiring.compactor },
      config: runtime.queryConfig,
    });
    for await (const event of events) {
      turnTelemetry?.observe(event);
      // The request is being sent: the SDK loads while the model answers.
      if (lazy && event.type === "request-start") setImmediate(lazy.start);
      if (!promptUuid && event.type === "message" && event.message.type === "user") promptUuid = event.message.uuid;
      if (event.type === "message" && event.message.type === "assistant") {
        const text = event.message.message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
        if (text) finalText = text;
      }
      if (event.type === "result") {
        result = event;
        continue;
      }
      if (args.outputFormat === "stream-json") {
        const line = eventToLine(event, sessionId);
        if (line) emit(line);
        // A subagent's messages, as Claude Code streams them: tagged with the Agent call's id.
        const inner = subagentMessage(event);
        if (inner) {
          const innerLine = eventToLine(inner, sessionId);
          if (innerLine) emit({ ...innerLine, parent_tool_use_id: event.type === "tool-progress" ? event.toolUseId : null });
        }
      } else if (args.verbose && (event.type === "notice" || event.type === "retry" || event.type === "error")) {
        io.stderr(`cairn: ${JSON.stringify(event)}\n`);
      }
    }
    const ended = await dispatchSessionEnd(wiring.hooks, "other", { signal: io.signal, now: Date.now });
    for (const event of ended.events) {
      if (event.type === "hook-runs") await wiring.sink.appendHookRuns(event.event, event.runs);
      else if (args.verbose) io.stderr(`cairn: ${JSON.stringify(event)}\n`);
    }
    await wiring.sink.close();
    if (!result) throw new Error("the agent loop ended without a result");
    const summary = resultLine(result, { sessionId, model: runtime.model.model, finalText });
    if (args.outputFormat === "text") io.stdout(finalText.endsWith("\n") || finalText === "" ? finalText : `${finalText}\n`);
    else emit(summary);
    if (result.terminal.reason === "model_error" || result.terminal.reason === "prompt_too_long" || result.terminal.reason === "blocking_limit") {
      if (args.outputFormat === "text") io.stderr(`cairn: ${result.terminal.error?.message ?? result.terminal.reason}\n`);
      return 1;
    }
    return 0;
  } finally {
    await runtime.close();
  }
}

async function resolveSession(args: PrintArgs, runtime: Runtime): Promise<{ sessionId: string; history: ConversationMessage[] } | undefined> {
  let sessionId = args.resume;
  if (!sessionId && args.continueLast) sessionId = await newestSession(runtime);
  if (!sessionId) {
    if (args.continueLast) throw new Error("--continue: there is no earlier session in this directory");
    return undefined;
  }
  try {
    assertSessionId(sessionId);
  } catch {
    throw new Error(`--resume: "${sessionId}" is not a session id`);
  }
  const path = sessionTranscriptPath({ cairnHome: runtime.cairnHome, cwd: runtime.workspaceRoot, sessionId });
  const loaded = await loadTranscript(path, { scope: "since-last-compact" }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") throw new Error(`--resume: no session ${sessionId} in ${runtime.workspaceRoot}`);
    throw error;
  });
  return { sessionId, history: repairForResume(loaded.messages) };
}

/** `--continue`: the session of this workspace written to last. */
async function newestSession(runtime: Runtime): Promise<string | undefined> {
  let newest: { id: string; mtime: number } | undefined;
  for (const file of await listTranscriptFiles(runtime.cairnHome, runtime.workspaceRoot)) {
    const { mtimeMs } = await stat(file.path);
    if (!newest || mtimeMs > newest.mtime) newest = { id: file.sessionId, mtime: mtimeMs };
  }
  return newest?.id;
}

/** `cairn -p "/compact [instructions]"`: summarise the resumed conversation now, as Claude Code's `/compact` does. */
async function runManualCompaction(options: {
  runtime: Runtime;
  wiring: SessionWiring;
  history: ConversationMessage[];
  instructions: string | undefined;
  sessionId: string;
  args: PrintArgs;
  io: CliIo;
  emit: (line: object) => void;
}): Promise<number> {
  const { runtime, wiring, history, io, args, emit, sessionId } = options;
  if (history.length === 0) {
    io.stderr("cairn: /compact needs a conversation: use it with --resume <id> or --continue\n");
    return 2;
  }
  const steps = manualCompaction({
    compactor: wiring.compactor,
    sink: wiring.sink,
    messages: history,
    model: runtime.model.model,
    systemPrompt: runtime.systemPrompt,
    signal: io.signal,
    client: runtime.model.client,
    lastInputTokens: null,
    instructions: options.instructions,
    hooks: wiring.hooks,
    uuid: randomUUID,
    now: Date.now,
  });
  let step = await steps.next();
  for (; !step.done; step = await steps.next()) {
    if (step.value.type === "notice" && args.verbose) io.stderr(`cairn: ${step.value.message}\n`);
  }
  const outcome = step.value;
  await wiring.sink.close();
  if (!outcome.ok) {
    io.stderr(`cairn: compaction failed (${outcome.error.code}): ${outcome.error.message}. The conversation was left as it was.\n`);
    return 1;
  }
  const summary = outcome.figures
    ? `Compacted the conversation: ${outcome.figures.preTokens} → ${outcome.figures.postTokens} tokens.`
    : "Compacted the conversation.";
  if (args.outputFormat === "text") io.stdout(`${summary}\n`);
  else emit({ type: "result", subtype: "success", is_error: false, result: summary, session_id: sessionId, num_turns: 0 });
  return 0;
}

/** A slash command answered without the model: its text, as a result. */
async function finishWithText(text: string, options: { args: PrintArgs; io: CliIo; emit: (line: object) => void; sessionId: string }): Promise<number> {
  if (options.args.outputFormat === "text") options.io.stdout(`${text}\n`);
  else options.emit({ type: "result", subtype: "success", is_error: false, result: text, session_id: options.sessionId, num_turns: 0 });
  return 0;
}

function subagentMessage(event: AgentEvent): AgentEvent | undefined {
  if (event.type !== "tool-progress" || typeof event.data !== "object" || event.data === null) return undefined;
  const data = event.data as { type?: unknown; event?: AgentEvent };
  return data.type === "subagent" && data.event?.type === "message" ? data.event : undefined;
}
