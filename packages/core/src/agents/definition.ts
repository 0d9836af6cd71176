import { z } from "zod";
import { frontMatterList, frontMatterText, parseFrontMatter } from "./front-matter.ts";

// Built at the first agent file read (z.lazy): a start without agent files builds none of it.
export const agentDefinitionSchema = z.lazy(() =>
  z.object({
    /** What `subagent_type` names. */
    agentType: z.string().regex(/^[A-Za-z0-9][\w.:-]*$/, "use letters, digits, '-', '_', '.' or ':'"),
    /** When to use the agent: shown to the model in the Agent tool's description. */
    description: z.string().min(1),
    /** Tool names the agent may use; undefined means every tool of the parent (except Agent). */
    tools: z.array(z.string().min(1)).optional(),
    /** `inherit` (the default), an alias (`sonnet`, `opus`, `haiku`) or a model id. */
    model: z.string().min(1).optional(),
    systemPrompt: z.string(),
    source: z.enum(["built-in", "project"]),
    path: z.string().optional(),
  }),
);
export type AgentDefinition = z.infer<typeof agentDefinitionSchema>;

export const GENERAL_PURPOSE_AGENT_TYPE = "general-purpose";

export const generalPurposeAgent: AgentDefinition = {
  agentType: GENERAL_PURPOSE_AGENT_TYPE,
  description:
    "General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. When you are searching for a keyword or file and are not confident that you will find the right match in the first few tries, use this agent to perform the search for you.",
  source: "built-in",
  systemPrompt: `You are an agent working for Cairn, a coding assistant. Given the task below, use the tools available to you to complete it. Do what has been asked; nothing more, nothing less.

Your strengths: searching for code, configurations and patterns across a large codebase; analysing several files to understand how a system fits together; investigating complex questions that need many files; performing multi-step research.

Guidelines:
- For file searches, use Grep or Glob when you need to search broadly; use Read when you know the path.
- Start broad and narrow down. Try several search strategies if the first does not find the answer.
- Be thorough: check several locations, consider different naming conventions, look for related files.
- Never create files unless they are necessary for the task. Prefer editing an existing file to creating one.
- File paths in your answer must be absolute. Do not use emojis.

When you are done, answer with a concise, detailed report of what you found or did: your answer is all the caller sees of your work.`,
};

export type AgentFileProblem = { path: string; message: string };

/**
 * A `.claude/agents/<name>.md` file in Claude Code's format: front matter with `name`,
 * `description`, optional `tools` (a comma list, a YAML list, or `*`) and `model`; the body is the
 * system prompt.
 */
export async function parseAgentFile(text: string, path: string): Promise<{ definition: AgentDefinition } | { problem: AgentFileProblem }> {
  const parsed = await parseFrontMatter(text);
  if (parsed.kind === "none") return { problem: { path, message: "no front matter (--- name: … description: … ---)" } };
  if (parsed.kind === "invalid") return { problem: { path, message: `front matter is not valid YAML: ${parsed.message}` } };
  const { data, body } = parsed;
  const name = frontMatterText(data, "name")?.trim() ?? "";
  const description = frontMatterText(data, "description")?.trim() ?? "";
  if (!name) return { problem: { path, message: 'missing "name" in the front matter' } };
  if (!description) return { problem: { path, message: 'missing "description" in the front matter' } };
  const tools = parseToolList(frontMatterList(data, "tools"));
  const modelText = frontMatterText(data, "model")?.trim();
  const model = modelText && modelText !== "inherit" ? modelText : undefined;
  const candidate = {
    agentType: name,
    description,
    ...(tools ? { tools } : {}),
    ...(model ? { model } : {}),
    systemPrompt: body.trim(),
    source: "project" as const,
    path,
  };
  const checked = agentDefinitionSchema.safeParse(candidate);
  if (!checked.success) return { problem: { path, message: checked.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ") } };
  return { definition: checked.data };
}

/** `Read, Grep` / `[Read, Grep]` / `- Read` → names; missing, empty or `*` → every tool. `Bash(git:*)` keeps `Bash`. */
function parseToolList(listed: string[] | undefined): string[] | undefined {
  if (listed === undefined) return undefined;
  const items = listed.map((item) => item.replace(/\(.*\)$/, "").trim()).filter((item) => item.length > 0);
  if (items.length === 0 || items.includes("*")) return undefined;
  return [...new Set(items)];
}

/** Built-in agents, then project agents; a project agent with a built-in's name replaces it. */
export function mergeAgentDefinitions(project: readonly AgentDefinition[]): AgentDefinition[] {
  const byType = new Map<string, AgentDefinition>([[generalPurposeAgent.agentType, generalPurposeAgent]]);
  for (const definition of project) byType.set(definition.agentType, definition);
  return [...byType.values()];
}
