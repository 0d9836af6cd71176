/** A compiled hook matcher: tests the tool name (or the event's match value, e.g. `startup`). */
export type HookMatcher = { matches(value: string | undefined): boolean; error?: string };

const plainList = /^[\w-]+(\|[\w-]+)*$/;

/**
 * Claude Code's matcher forms: empty, missing or `*` matches everything; `Write` matches exactly;
 * `Write|Edit` is a list of exact names; anything else is a regular expression that must match the
 * whole value (`Notebook.*`, `mcp__memory__.*`). An invalid expression matches nothing and says why.
 */
export function compileHookMatcher(matcher: string | undefined): HookMatcher {
  const text = matcher?.trim() ?? "";
  if (text === "" || text === "*") return { matches: () => true };
  if (plainList.test(text)) {
    const names = new Set(text.split("|"));
    return { matches: (value) => value !== undefined && names.has(value) };
  }
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^(?:${text})$`);
  } catch (error) {
    return { matches: () => false, error: `invalid hook matcher "${text}": ${error instanceof Error ? error.message : String(error)}` };
  }
  return { matches: (value) => value !== undefined && pattern.test(value) };
}
