import { resolveModelAlias } from "../model/model-aliases.ts";
import type { AppState } from "../state/app-state.ts";
import { expandSkillBody, type SkillDefinition } from "./definition.ts";

/** Where a skill's use is recorded: the rules it granted, to take back when the prompt's run ends. */
export type SkillGrants = {
  /** Whether this skill's `allowed-tools` may be granted (a project skill needs a trusted workspace). */
  mayGrant(skill: SkillDefinition): boolean;
  record(rules: readonly string[]): void;
};

/**
 * Grants a skill's `allowed-tools` as session allow rules (only those not already there, so taking
 * them back later leaves the user's own rules alone). Returns the rules added.
 */
export function grantSkillTools(
  skill: SkillDefinition,
  state: { getAppState(): AppState; setAppState(update: (state: AppState) => AppState): void },
  grants: SkillGrants,
): string[] {
  if (skill.allowedTools.length === 0 || !grants.mayGrant(skill)) return [];
  const present = new Set(state.getAppState().sessionAllowRules);
  const added = skill.allowedTools.filter((rule) => !present.has(rule));
  if (added.length === 0) return [];
  state.setAppState((current) => ({ ...current, sessionAllowRules: [...current.sessionAllowRules, ...added] }));
  grants.record(added);
  return added;
}

/**
 * A skill's `model:` (an alias, `inherit` or an id) becomes the model of the main conversation's
 * requests while the prompt that used it runs, as plan mode's model does while planning. Returns the model switched to.
 */
export function useSkillModel(
  skill: SkillDefinition,
  state: { getAppState(): AppState; setAppState(update: (state: AppState) => AppState): void },
): string | undefined {
  if (!skill.model) return undefined;
  const current = state.getAppState();
  const model = resolveModelAlias(skill.model, current.model);
  if (model === current.model) return undefined;
  state.setAppState((app) => ({ ...app, skillModel: model }));
  return model;
}

/** Takes back what skills granted (their rules) and their model, when the run that used them ends. */
export function revokeSkillTools(rules: readonly string[], setAppState: (update: (state: AppState) => AppState) => void): void {
  const revoked = new Set(rules);
  setAppState((current) => {
    if (revoked.size === 0 && current.skillModel === undefined) return current;
    const { skillModel: _skillModel, ...rest } = current;
    return { ...rest, sessionAllowRules: current.sessionAllowRules.filter((rule) => !revoked.has(rule)) };
  });
}

/** The text that brings a skill into the conversation: its directory, then its body with the arguments in. */
export function renderSkillPrompt(skill: SkillDefinition, body: string, args: string): string {
  const expanded = expandSkillBody(body, args).trim();
  if (skill.kind === "command") return expanded;
  return `Base directory for this skill: ${skill.directory}\n\n${expanded}`;
}
