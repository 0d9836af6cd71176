import type { PermissionBehavior } from "../schema/permissions.ts";
import { compileRule, type CompiledRule, type PathRuleRoots } from "./rule-matcher.ts";
import { sortRulesBySource } from "./settings-merge.ts";

/** Rules split by behaviour, each list in citation order (policy first). */
export type RuleSet = Readonly<Record<PermissionBehavior, readonly CompiledRule[]>>;

/**
 * Builds the effective rule set from settings rules plus the session's allow rules, caching on
 * the identity of both inputs (settings and app state are immutable, so identity means equality).
 */
export function createRuleSetCache(roots: PathRuleRoots): (settingsRules: readonly CompiledRule[], sessionRules: readonly string[]) => RuleSet {
  const sessionCompiled = new Map<string, CompiledRule | null>();
  let lastSettings: readonly CompiledRule[] | undefined;
  let lastSession: readonly string[] | undefined;
  let cached: RuleSet | undefined;
  return (settingsRules, sessionRules) => {
    if (cached && lastSettings === settingsRules && lastSession === sessionRules) return cached;
    const session: CompiledRule[] = [];
    for (const rule of sessionRules) {
      let compiled = sessionCompiled.get(rule);
      if (compiled === undefined) {
        const result = compileRule(rule, "allow", "session", roots);
        compiled = result.ok ? result.rule : null;
        sessionCompiled.set(rule, compiled);
      }
      if (compiled) session.push(compiled);
    }
    const all = sortRulesBySource([...settingsRules, ...session]);
    cached = {
      deny: all.filter((rule) => rule.behavior === "deny"),
      ask: all.filter((rule) => rule.behavior === "ask"),
      allow: all.filter((rule) => rule.behavior === "allow"),
    };
    lastSettings = settingsRules;
    lastSession = sessionRules;
    return cached;
  };
}
