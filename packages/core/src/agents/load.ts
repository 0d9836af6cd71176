import type { Workspace } from "../workspace/port.ts";
import { mergeAgentDefinitions, parseAgentFile, type AgentDefinition, type AgentFileProblem } from "./definition.ts";

/** What reading `.claude/agents` takes: the Workspace port's reads, or a reader of the same disk in this process. */
export type AgentFiles = Pick<Workspace, "root" | "stat" | "list" | "readFile">;

/**
 * The agents a workspace defines in `.claude/agents/*.md`, plus the built-in general-purpose agent.
 * Read through the Workspace port's reads, so the same code serves a local and a remote workspace. A file
 * that does not parse is reported and skipped.
 */
export async function loadAgentDefinitions(workspace: AgentFiles): Promise<{ definitions: AgentDefinition[]; problems: AgentFileProblem[] }> {
  const directory = `${workspace.root.replace(/\/$/, "")}/.claude/agents`;
  const problems: AgentFileProblem[] = [];
  const project: AgentDefinition[] = [];
  let entries: Awaited<ReturnType<Workspace["list"]>> = [];
  try {
    if ((await workspace.stat(directory))?.kind === "directory") entries = await workspace.list(directory);
  } catch (error) {
    problems.push({ path: directory, message: `cannot list: ${(error as Error).message}` });
  }
  const files = entries.filter((entry) => entry.kind === "file" && entry.name.endsWith(".md")).sort((left, right) => left.name.localeCompare(right.name));
  for (const file of files) {
    let text: string;
    try {
      text = new TextDecoder().decode(await workspace.readFile(file.path));
    } catch (error) {
      problems.push({ path: file.path, message: `cannot read: ${(error as Error).message}` });
      continue;
    }
    const parsed = await parseAgentFile(text, file.path);
    if ("problem" in parsed) problems.push(parsed.problem);
    else if (project.some((known) => known.agentType === parsed.definition.agentType))
      problems.push({ path: file.path, message: `another file already defines the agent "${parsed.definition.agentType}"` });
    else project.push(parsed.definition);
  }
  return { definitions: mergeAgentDefinitions(project), problems };
}
