import { z } from "zod";
import { frontMatterList, parseFrontMatter } from "../agents/front-matter.ts";
import { parseRuleValue, splitToolListFlag } from "../permissions/rule-parser.ts";

/** A skill (`.claude/skills/<name>/SKILL.md`) or a legacy command file (`.claude/commands/<name>.md`). */
export type SkillDefinition = {
  name: string;
  kind: "skill" | "command";
  source: "project" | "user";
  description: string;
  /** The SKILL.md or command file. */
  path: string;
  /** Where the skill's supporting files live (the command file's directory for commands). */
  directory: string;
  /** Permission rules granted for the session while the skill is in use. */
  allowedTools: string[];
  model?: string;
  /** Only a person may invoke it (as a slash command); the model is not offered it. */
  disableModelInvocation: boolean;
  argumentHint?: string;
};

/** A file that looks like a skill but cannot be used, with the reason. */
export type SkillProblem = { name: string; kind: "skill" | "command"; path: string; reason: string };

export const SKILL_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

// Built at the first skill file read (z.lazy): a start without skills builds no schema for them.
const frontMatterSchema = z.lazy(() => {
  const toolList = z.union([z.string(), z.array(z.string())]);
  return z
    .object({
      name: z.string().regex(SKILL_NAME_PATTERN, "use letters, digits, '-', '_', '.' or ':' (at most 64)").optional(),
      description: z.string().optional(),
      "allowed-tools": toolList.optional(),
      model: z.string().min(1).optional(),
      "disable-model-invocation": z.boolean().optional(),
      "argument-hint": z.string().optional(),
    })
    .loose();
});

export type ParsedSkill = { ok: true; skill: SkillDefinition; body: string } | { ok: false; problem: SkillProblem };

/** Parses a skill or command file; `name` is the directory (skills) or file name (commands). */
export async function parseSkillFile(
  text: string,
  origin: { name: string; kind: "skill" | "command"; source: "project" | "user"; path: string; directory: string },
): Promise<ParsedSkill> {
  const fail = (reason: string): ParsedSkill => ({ ok: false, problem: { name: origin.name, kind: origin.kind, path: origin.path, reason } });
  const parsed = await parseFrontMatter(text);
  if (parsed.kind === "invalid") return fail(`invalid YAML front matter: ${parsed.message}`);
  if (parsed.kind === "none" && /^\uFEFF?---[ \t]*\r?\n/.test(text)) return fail("the front matter opened with --- is never closed");
  const frontMatter = parsed.kind === "parsed" ? parsed : { data: {}, body: text.replace(/\r\n?/g, "\n") };
  const checked = frontMatterSchema.safeParse(frontMatter.data);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return fail(`front matter field "${issue?.path.join(".") ?? "?"}": ${issue?.message ?? "invalid"}`);
  }
  const data = checked.data;
  // A YAML list or a comma list; Claude Code also accepts rules separated by spaces.
  const allowedTools = splitToolListFlag(frontMatterList(frontMatter.data, "allowed-tools") ?? []);
  for (const rule of allowedTools) {
    const checkedRule = parseRuleValue(rule);
    if (!checkedRule.ok) return fail(`allowed-tools: "${rule}" is not a permission rule (${checkedRule.message})`);
  }
  const description = data.description?.trim() || firstLine(frontMatter.body) || `The ${origin.name} ${origin.kind}`;
  return {
    ok: true,
    body: frontMatter.body,
    skill: {
      name: data.name ?? origin.name,
      kind: origin.kind,
      source: origin.source,
      description,
      path: origin.path,
      directory: origin.directory,
      allowedTools,
      ...(data.model ? { model: data.model } : {}),
      disableModelInvocation: data["disable-model-invocation"] ?? false,
      ...(data["argument-hint"] ? { argumentHint: data["argument-hint"] } : {}),
    },
  };
}

function firstLine(body: string): string | undefined {
  const line = body.split("\n").find((candidate) => candidate.trim() !== "");
  return line
    ?.replace(/^#+\s*/, "")
    .trim()
    .slice(0, 200);
}

/**
 * The text a skill or command sends: `$ARGUMENTS` is the whole argument string, `$1`, `$2`… its
 * words. A body that uses neither gets the arguments appended, so they are never lost.
 */
export function expandSkillBody(body: string, args: string): string {
  const words = splitArguments(args);
  let used = false;
  const expanded = body
    .replace(/\$ARGUMENTS\b/g, () => {
      used = true;
      return args;
    })
    .replace(/\$(\d+)\b/g, (_match, index: string) => {
      used = true;
      return words[Number(index) - 1] ?? "";
    });
  if (!used && args.trim() !== "") return `${expanded.trimEnd()}\n\nARGUMENTS: ${args}`;
  return expanded;
}

/** Splits arguments on whitespace; double or single quotes keep a word together. */
function splitArguments(args: string): string[] {
  return [...args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3] ?? "");
}
