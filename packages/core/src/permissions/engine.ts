import type { DecisionReason, PermissionAnswer } from "../schema/permissions.ts";
import type { AppState } from "../state/app-state.ts";
import { describeCall, type CallSubject } from "./call-subject.ts";
import { denialRulesCannotLift, withAllow, withDenial } from "./denial-tracking.ts";
import { isProtectedPath } from "./modes.ts";
import type { PermissionCheckArgs, PermissionCheckResult, PermissionGate } from "./port.ts";
import { isWithin, resolvePosix } from "./posix-path.ts";
import { ruleMatchesSubject, type CompiledRule } from "./rule-matcher.ts";
import { createRuleSetCache, type RuleSet } from "./rule-set.ts";
import type { MergedSettings } from "./settings-merge.ts";
import { editRulesCoveringAll, findWriteRuleHit, writesAcceptEditsRefuses, writesOutside } from "./bash-writes.ts";
import { evaluateBashCommands, findBashRuleHit, type BashCommandsVerdict } from "./shell/bash-rules.ts";
import { denyCandidateArgvs } from "./shell/deny-candidates.ts";
import { isReadOnlyAnalysis } from "./shell/read-only.ts";
import type { ShellParser } from "./shell/shell-parser.ts";
import type { ShellAnalysis, ShellWord, SimpleCommand } from "./shell/types.ts";
import { describeWrites, shellWrites, type ShellWrite } from "./shell/write-targets.ts";
import { denialKey, suggestRules } from "./suggestions.ts";
import { createAutoModeJudge } from "./auto-mode/auto-mode-judge.ts";
import { parsedCommandView, userRequestsOf } from "./auto-mode/classifier-action.ts";
import type { ActionClassifier } from "./auto-mode/classifier-port.ts";
import { DEFAULT_AUTO_MODE_TIMEOUT_MS } from "./auto-mode/auto-mode-settings.ts";

export type PermissionEngineOptions = {
  /** Read on every check, so reloaded settings apply at once. */
  getSettings(): Pick<MergedSettings, "permissions"> & Partial<Pick<MergedSettings, "sandbox" | "autoMode">>;
  /** Bash runs inside the sandbox (or not at all): lets `sandbox.autoAllowBashIfSandboxed` apply. */
  bashSandboxed?: boolean;
  getAppState(): AppState;
  setAppState(update: (state: AppState) => AppState): void;
  workspaceRoot: string;
  additionalDirectories?: readonly string[];
  /**
   * Without a parser no Bash command is allowed by a specifier rule or as read-only: they ask. A parser
   * still loading is awaited by the first decision that needs it (a failed load counts as none); a loader
   * function is called by the first decision about a Bash command, so a session without Bash never loads it.
   */
  parser?: ShellParser | Promise<ShellParser> | (() => Promise<ShellParser>);
  /** Writes an "always allow" rule (Node: into `.claude/settings.local.json`). */
  persistRule?(rule: string): Promise<void>;
  homeDir?: string;
  /** Auto mode's classifier; without one, auto mode asks what no rule decides, as default mode does. */
  classifier?: ActionClassifier;
  /** Paths outside the workspace that read-only tools may still read: the session's saved tool results. */
  isReadableOutsidePath?(path: string): boolean;
};

export type PermissionEngine = Required<Pick<PermissionGate, "recordAnswer" | "recordDenial">> &
  PermissionGate & {
    /** Suggested rules for a call, as an `ask` would carry them. */
    suggest(args: Pick<PermissionCheckArgs, "tool" | "input" | "context">): string[];
    /** True when a deny rule covers reading `path` with `toolName`: lets Grep/Glob skip denied files. */
    isPathDenied(toolName: string, path: string): boolean;
  };

type Decision = Exclude<PermissionCheckResult, { behavior: "passthrough" }>;
type AskDecision = Extract<Decision, { behavior: "ask" }>;
/** An ask no rule, hook or mode decided: the one auto mode's classifier may decide. */
type Undecided = { subject: CallSubject; analysis: ShellAnalysis | undefined; writes: readonly ShellWrite[]; cwd: string };

const ruleReason = (rule: CompiledRule): DecisionReason => ({ type: "rule", rule: rule.rule, source: rule.source, behavior: rule.behavior });

export function createPermissionEngine(options: PermissionEngineOptions): PermissionEngine {
  const workspaceRoot = resolvePosix("/", options.workspaceRoot);
  const undecided = new WeakMap<Decision, Undecided>();
  const autoMode = options.classifier
    ? createAutoModeJudge({
        classifier: options.classifier,
        timeoutMs: () => options.getSettings().autoMode?.timeoutMs ?? DEFAULT_AUTO_MODE_TIMEOUT_MS,
        limits: () => options.getSettings().permissions.denialLimits,
        denials: () => options.getAppState().denials,
      })
    : undefined;
  const ruleSetFor = createRuleSetCache({ projectRoot: workspaceRoot, ...(options.homeDir ? { homeDir: options.homeDir } : {}) });

  /** `extraAllowRules`: a what-if, to check that a suggested rule would really allow the call. */
  const current = (extraAllowRules: readonly string[] = []) => {
    const permissions = options.getSettings().permissions;
    const state = options.getAppState();
    const rules: RuleSet = ruleSetFor(permissions.rules, extraAllowRules.length ? [...state.sessionAllowRules, ...extraAllowRules] : state.sessionAllowRules);
    const roots = [
      workspaceRoot,
      ...(options.additionalDirectories ?? []).map((directory) => resolvePosix(workspaceRoot, directory)),
      ...permissions.additionalDirectories,
    ];
    return {
      rules,
      roots,
      mode: state.permissionMode,
      autoAllowSandboxed: options.bashSandboxed === true && options.getSettings().sandbox?.autoAllowBashIfSandboxed === true,
    };
  };

  let parser: ShellParser | undefined;
  let parserLoading: Promise<void> | undefined;
  const awaitParser = (loading: Promise<ShellParser>): Promise<void> =>
    loading.then(
      (loaded) => {
        parser = loaded;
      },
      () => undefined,
    );
  const parserOption = options.parser;
  if (parserOption instanceof Promise) parserLoading = awaitParser(parserOption);
  else if (typeof parserOption !== "function") parser = parserOption;
  /** Resolves once the parser is loaded or has failed to; a loader function is called the first time only. */
  const parserReady = (): Promise<void> | undefined => {
    if (parserLoading === undefined && typeof parserOption === "function") parserLoading = awaitParser(parserOption());
    return parserLoading;
  };

  const analyse = (command: string): ShellAnalysis =>
    parser ? parser.analyze(command) : { command, commands: [], redirects: [], problems: ["the shell parser is not available"] };

  const suggestionsFor = (
    subject: CallSubject,
    analysis: ShellAnalysis | undefined,
    roots: readonly string[],
    uncovered?: readonly SimpleCommand[],
    writes: readonly ShellWrite[] = [],
  ) => suggestRules(subject, analysis, { roots, ...(options.homeDir ? { homeDir: options.homeDir } : {}) }, uncovered, writes);

  const decide = async (args: PermissionCheckArgs, extraAllowRules: readonly string[] = []): Promise<Decision> => {
    const { tool, input, context } = args;
    const cwd = context.cwd || workspaceRoot;
    const subject = describeCall(tool, input, cwd);
    if (subject.command !== undefined) {
      const loading = parserReady();
      if (loading) await loading;
    }
    const { rules, roots, mode, autoAllowSandboxed } = current(extraAllowRules);
    const analysis = subject.command === undefined ? undefined : analyse(subject.command);
    // Every file the Bash line writes (redirections, tee, dd of=): judged as an Edit of that file.
    const writes = analysis ? shellWrites(analysis, cwd) : [];
    const writing = writes.length > 0 ? `; it writes ${describeWrites(writes)}` : "";
    const name = subject.toolName;
    const ask = (reason: DecisionReason, message: string, uncovered?: readonly SimpleCommand[], extra: readonly string[] = []): AskDecision => {
      const suggestions = [...new Set([...extra, ...suggestionsFor(subject, analysis, roots, uncovered, writes)])];
      return { behavior: "ask", reason, message, suggestions };
    };
    let candidates: ShellWord[][] | undefined;
    const findRule = (list: readonly CompiledRule[]) =>
      analysis
        ? (findBashRuleHit(() => (candidates ??= denyCandidateArgvs(analysis, analyse)), list) ?? findWriteRuleHit(writes, list)?.rule)
        : list.find((rule) => ruleMatchesSubject(rule, subject));

    // 1. Deny rules: nothing overrides them (for Bash, Edit rules on the files it writes count too).
    const denyRule = findRule(rules.deny);
    if (denyRule) {
      return {
        behavior: "deny",
        reason: ruleReason(denyRule),
        message: `Permission to use ${name} was denied by the rule ${denyRule.rule} (${denyRule.source})${writing}.`,
      };
    }

    // 2. A PreToolUse hook's decision (deny rules were checked first, so an allow cannot override one).
    const hook = args.hookDecision;
    if (hook) {
      const reason: DecisionReason = { type: "hook", hookName: hook.hookName, ...(hook.reason ? { reason: hook.reason } : {}) };
      if (hook.behavior === "deny") return { behavior: "deny", reason, message: `A hook denied this call${hook.reason ? `: ${hook.reason}` : "."}` };
      if (hook.behavior === "allow") return { behavior: "allow", reason };
      return ask(reason, hook.reason ?? `A hook asks for confirmation before ${name} runs.`);
    }

    // 3. The tool's own logic.
    if (tool.checkPermissions) {
      let own: PermissionCheckResult;
      try {
        own = await tool.checkPermissions(input, context);
      } catch (error) {
        const reason = `${name} could not check its permissions: ${error instanceof Error ? error.message : String(error)}`;
        return ask({ type: "tool", reason }, reason);
      }
      if (own.behavior === "ask") return ask(own.reason, own.message ?? `${name} asks for confirmation.`, undefined, own.suggestions ?? []);
      if (own.behavior !== "passthrough") return own;
    }

    // 4. Ask rules.
    const askRule = findRule(rules.ask);
    if (askRule) return ask(ruleReason(askRule), `The rule ${askRule.rule} (${askRule.source}) asks before this call${writing}.`);

    const readOnly = analysis ? isReadOnlyAnalysis(analysis) : !tool.mcpInfo && safeIsReadOnly(tool, input);

    // 5. Plan mode admits read-only calls only.
    if (mode === "plan" && !readOnly) {
      if (tool.name === "ExitPlanMode") {
        // Plans are a person's call; only an allow rule given on this run's command line pre-approves
        // them (a headless `cairn -p --allowedTools ExitPlanMode`), never one from a settings file.
        const approved = rules.allow.find((rule) => rule.source === "cliArg" && ruleMatchesSubject(rule, subject));
        if (approved) return { behavior: "allow", reason: ruleReason(approved) };
        return ask({ type: "mode", mode, reason: "leaving plan mode needs approval" }, "Approve the plan and leave plan mode?");
      }
      return {
        behavior: "deny",
        reason: { type: "mode", mode, reason: "plan mode allows read-only tools only" },
        message: `${name} is not available in plan mode: only read-only tools may run until the plan is approved${writing}.`,
      };
    }

    // 6. Allow rules. A Bash specifier allows only when every simple command is covered, and a
    //    line that writes files also needs an Edit rule for each of them.
    let verdict: BashCommandsVerdict | undefined;
    if (analysis) {
      verdict = evaluateBashCommands(analysis, rules.allow);
      if (verdict.kind === "whole-tool") return { behavior: "allow", reason: ruleReason(verdict.rule) };
      if (verdict.kind === "covered") {
        const writeRules = editRulesCoveringAll(writes, rules.allow);
        const rule = writeRules?.[0] ?? verdict.rule;
        if (writeRules && rule) return { behavior: "allow", reason: ruleReason(rule) };
      }
    } else {
      const allowRule = rules.allow.find((rule) => ruleMatchesSubject(rule, subject));
      if (allowRule) return { behavior: "allow", reason: ruleReason(allowRule) };
    }

    // 7. Workspace confinement for anything with a path, and for the files a command line writes.
    const readableOutside = readOnly && subject.path !== undefined && options.isReadableOutsidePath?.(subject.path) === true;
    if (subject.path !== undefined && !readableOutside && !roots.some((root) => isWithin(root, subject.path!))) {
      const reason: DecisionReason = { type: "workspace", reason: `${subject.path} is outside the workspace` };
      if (mode === "bypassPermissions") return { behavior: "deny", reason, message: `${subject.path} is outside the workspace.` };
      return ask(reason, `${name} wants to access ${subject.path}, outside the workspace.`);
    }
    const outside = writesOutside(writes, roots);
    if (outside.length > 0) {
      const reason: DecisionReason = { type: "workspace", reason: `writes outside the workspace: ${describeWrites(outside)}` };
      if (mode === "bypassPermissions") return { behavior: "deny", reason, message: `The command writes outside the workspace: ${describeWrites(outside)}.` };
      return ask(
        reason,
        `The command writes outside the workspace: ${describeWrites(outside)}. Allow?`,
        verdict?.kind === "uncovered" ? verdict.uncovered : undefined,
      );
    }

    // 8. Modes.
    if (mode === "bypassPermissions") return { behavior: "allow", reason: { type: "mode", mode, reason: "bypassPermissions allows every call" } };
    // Auto mode lets through what acceptEdits would, without asking its classifier.
    const editsAllowed = mode === "acceptEdits" || mode === "auto";
    const editsMode = mode === "auto" ? "auto mode, like acceptEdits," : "acceptEdits";
    if (editsAllowed && subject.isEdit && subject.path !== undefined) {
      if (isProtectedPath(subject.path, roots)) {
        return ask(
          { type: "workspace", reason: `${subject.path} is in a protected directory (.git, .claude, .cairn)` },
          `${name} wants to change ${subject.path}, a protected path.`,
        );
      }
      return { behavior: "allow", reason: { type: "mode", mode, reason: `${editsMode} allows edits inside the workspace` } };
    }
    if (editsAllowed && verdict?.kind === "covered" && writes.length > 0) {
      const refused = writesAcceptEditsRefuses(writes, roots);
      if (refused.length === 0) {
        return { behavior: "allow", reason: { type: "mode", mode, reason: `${editsMode} allows writing ${describeWrites(writes)} inside the workspace` } };
      }
      const protectedWrites = refused.filter((write) => write.path !== undefined);
      if (protectedWrites.length > 0) {
        return ask(
          { type: "workspace", reason: `writes ${describeWrites(protectedWrites)} in a protected directory (.git, .claude, .cairn)` },
          `The command writes ${describeWrites(protectedWrites)}, a protected path. Allow?`,
        );
      }
    }

    // 9. Read-only calls need no approval.
    if (readOnly) {
      return { behavior: "allow", reason: { type: "mode", mode, reason: analysis ? "read-only command" : `${name} is read-only` } };
    }

    // 10. Sandbox auto-allow: the sandbox confines what Bash can write and reach, so no rule has to.
    //     Deny and ask rules, plan mode and writes outside the workspace decided above; writes into
    //     .git, .claude or .cairn still ask.
    if (analysis && autoAllowSandboxed && writes.every((write) => write.path === undefined || !isProtectedPath(write.path, roots))) {
      return { behavior: "allow", reason: { type: "sandbox", reason: "autoAllowBashIfSandboxed: the command runs inside the sandbox" } };
    }

    // 11. Ask: nothing above decided, so in auto mode the classifier may.
    const pending = (decision: AskDecision): AskDecision => {
      undecided.set(decision, { subject, analysis, writes, cwd });
      return decision;
    };
    if (verdict?.kind === "unsafe") {
      return pending(
        ask(
          { type: "classifier", classifier: "bash-analysis", reason: `${verdict.reason}${writing}` },
          `Rules cannot vouch for this command: ${verdict.reason}${writing}.`,
        ),
      );
    }
    if (verdict?.kind === "covered") {
      const what = describeWrites(writes);
      return pending(
        ask(
          { type: "classifier", classifier: "bash-analysis", reason: `the command writes ${what}; a Bash rule never allows writing files` },
          `The command writes ${what}. Allow?`,
          [],
        ),
      );
    }
    const uncovered = verdict?.kind === "uncovered" ? verdict.uncovered : undefined;
    const what = uncovered?.length ? uncovered.map((command) => command.text).join(", ") : name;
    return pending(ask({ type: "default", reason: `no rule allows ${what}${writing}` }, `Allow ${what}${writing}?`, uncovered));
  };

  const recordSession = (rule: string) =>
    options.setAppState((state) => (state.sessionAllowRules.includes(rule) ? state : { ...state, sessionAllowRules: [...state.sessionAllowRules, rule] }));

  // An allowed call ends a run of denials (no state update when there was none).
  const recordAllow = () => {
    const denials = options.getAppState().denials;
    if (withAllow(denials) !== denials) options.setAppState((state) => ({ ...state, denials: withAllow(state.denials) }));
  };

  /** In auto mode, an ask nothing else decided goes to the classifier (never in any other mode). */
  const judged = async (args: PermissionCheckArgs, decision: Decision): Promise<Decision> => {
    const call = decision.behavior === "ask" ? undecided.get(decision) : undefined;
    if (!autoMode || !call || decision.behavior !== "ask" || options.getAppState().permissionMode !== "auto") return decision;
    return autoMode.judge({
      toolName: call.subject.toolName,
      input: args.input,
      cwd: call.cwd,
      ask: decision,
      signal: args.context.signal,
      buildAction: () => ({
        toolName: call.subject.toolName,
        input: args.input,
        cwd: call.cwd,
        userRequests: userRequestsOf(args.context.messages),
        ...(call.analysis ? { parsedCommand: parsedCommandView(call.analysis, call.writes) } : {}),
      }),
    });
  };

  const engine: PermissionEngine = {
    // Decisions reach OpenTelemetry as a `cairn.permission` span under the tool call's span (see
    // the api's session telemetry), built from the `permission-decision` event, so nothing here traces.
    async check(args) {
      const decision = await judged(args, await decide(args));
      if (decision.behavior === "allow") recordAllow();
      return decision;
    },

    async recordAnswer(_args, answer: PermissionAnswer, suggestions) {
      const rule = suggestions[0];
      if (answer.behavior === "allow") recordAllow();
      if (answer.behavior === "allow" && rule !== undefined && answer.scope !== "once") {
        recordSession(rule);
        if (answer.scope === "always") await options.persistRule?.(rule);
      }
    },

    async recordDenial(args, reason) {
      const suggestions = engine.suggest(args);
      const key = denialKey(args.tool.name, suggestions);
      let count = 0;
      options.setAppState((state) => {
        const next = withDenial(state.denials, key, reason);
        count = next.count;
        return { ...state, denials: next.denials };
      });
      const rule = suggestions[0];
      if (rule === undefined || denialRulesCannotLift(reason)) return undefined;
      if (!options.getSettings().permissions.denialLimits.suggestAfter.includes(count)) return undefined;
      // Only a rule that would really allow this call (no deny or ask rule overriding it, no mode
      // refusing it) is worth suggesting; the what-if skips hooks, which decide per call.
      const { hookDecision: _hook, ...withoutHook } = args;
      const whatIf = await decide(withoutHook, [rule]);
      if (whatIf.behavior !== "allow") return undefined;
      return { rule, denials: count };
    },

    suggest({ tool, input, context }) {
      const { roots } = current();
      const cwd = context.cwd || workspaceRoot;
      const subject = describeCall(tool, input, cwd);
      const analysis = subject.command === undefined ? undefined : analyse(subject.command);
      return suggestionsFor(subject, analysis, roots, undefined, analysis ? shellWrites(analysis, cwd) : []);
    },

    isPathDenied(toolName, path) {
      const { rules } = current();
      const subject = { toolName, path: resolvePosix(workspaceRoot, path) };
      return rules.deny.some((rule) => rule.matcher.kind === "path" && ruleMatchesSubject(rule, subject));
    },
  };
  return engine;
}

function safeIsReadOnly(tool: PermissionCheckArgs["tool"], input: unknown): boolean {
  try {
    return tool.isReadOnly(input);
  } catch {
    return false;
  }
}
