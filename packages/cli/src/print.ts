import {
  checkBypassPermissionsAllowed,
  dispatchSessionEnd,
  grantSkillTools,
  useSkillModel,
  productionDeps,
  renderSkillPrompt,
  renderSlashHelp,
  renderSlashPrompt,
  resolveSlashCommand,
  runPrompt,
  type AgentEvent,
} from "@cairn/core";
import { createCheckpointStore, httpFetch } from "@cairn/core/node";
import { checkpointingGate, createRuntime, type Runtime } from "@cairn/api/runtime";
import type { PrintArgs } from "./args.ts";
import type { TurnTelemetry } from "@cairn/api/telemetry";
import type { CliEnv } from "./env.ts";
import { eventToLine, initLine, resultLine } from "./stream-json.ts";
import { reportSettingsProblems, runtimeOptionsFromEnv } from "./runtime-env.ts";
import { finishWithText, runManualCompaction } from "./print-builtin-commands.ts";
import { resolveSession } from "./print-resume.ts";
import type { LazyTelemetry } from "./print-telemetry.ts";

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
  // Only with telemetry on: the OpenTelemetry API stays unloaded otherwise.
  const telemetry = env.telemetry ? (await import("./print-telemetry.ts")).lazyTelemetry(env.telemetry, io, version) : undefined;
  try {
    return await runWithRuntime(args, env, io, version, telemetry);
  } finally {
    await telemetry?.shutdown();
  }
}

async function runWithRuntime(args: PrintArgs, env: CliEnv, io: CliIo, version: string, lazy: LazyTelemetry | undefined): Promise<number> {
  let runtime: Runtime;
  try {
    runtime = await createRuntime({
      ...runtimeOptionsFromEnv(env),
      workspaceRoot: io.cwd,
      version,
      // Over node:http: Node's fetch would load undici, the largest cost before the first request.
      modelFetch: httpFetch,
      model: args.model ?? env.model,
      planModel: args.planModel,
      fallbackModel: args.fallbackModel ?? env.fallbackModel,
      flagSettings: args.settings,
      allowedTools: args.allowedTools,
      disallowedTools: args.disallowedTools,
      permissionMode: args.permissionMode,
      toolNames: args.tools,
      trusted: true,
      // In this process: a worker child's start and per-call round trips would cost more than the run's cold-start
      // and 30-turn targets allow (figures in docs/scaling.md); `cairn serve` goes through its local worker process.
      inProcessWorkspace: true,
      mcpConfig: args.mcpConfig,
      taskBudget: args.taskBudget,
    });
  } catch (error) {
    io.stderr(`cairn: could not start: ${(error as Error).message}\n`);
    return 1;
  }
  try {
    reportSettingsProblems(runtime.settings.problems, io.stderr);
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

function subagentMessage(event: AgentEvent): AgentEvent | undefined {
  if (event.type !== "tool-progress" || typeof event.data !== "object" || event.data === null) return undefined;
  const data = event.data as { type?: unknown; event?: AgentEvent };
  return data.type === "subagent" && data.event?.type === "message" ? data.event : undefined;
}
