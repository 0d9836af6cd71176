import type { SkillDefinition } from "./definition.ts";
import type { SkillCatalog } from "./discover.ts";

export const builtinSlashCommands = [
  { name: "compact", description: "Summarise the conversation so far to free context", argumentHint: "[instructions]" },
  { name: "clear", description: "Start a new session (this one stays in the session list)" },
  { name: "model", description: "Switch this session's model", argumentHint: "<name>" },
  { name: "help", description: "List the slash commands" },
] as const;
export type BuiltinSlashCommand = (typeof builtinSlashCommands)[number]["name"];

/** One entry of the slash menu and of `/help`. */
export type SlashCommandInfo = { name: string; description: string; kind: "builtin" | "skill" | "command"; argumentHint?: string };

export type SlashInvocation =
  | { kind: "builtin"; name: BuiltinSlashCommand; args: string }
  | { kind: "skill"; skill: SkillDefinition; args: string }
  | { kind: "error"; name: string; message: string };

/** `/name args` → its parts; anything else (plain text, `/usr/bin/env` as a path) is not a command. */
export function parseSlashCommand(input: string): { name: string; args: string } | null {
  const match = /^\/([A-Za-z0-9][\w.:-]*)(?:\s+([\s\S]*))?$/.exec(input.trim());
  if (!match) return null;
  return { name: match[1]!, args: (match[2] ?? "").trim() };
}

/** What a slash command names: a built-in, a skill or legacy command, or an error that sends nothing to the model. */
export function resolveSlashCommand(input: string, catalog: SkillCatalog): SlashInvocation | null {
  const parsed = parseSlashCommand(input);
  if (!parsed) return null;
  const { name, args } = parsed;
  const builtin = builtinSlashCommands.find((command) => command.name === name);
  if (builtin) {
    if (builtin.name === "model" && args === "") return { kind: "error", name, message: "/model needs a model name, e.g. /model claude-opus-4-1" };
    return { kind: "builtin", name: builtin.name, args };
  }
  const skill = catalog.skills.find((candidate) => candidate.name === name);
  if (skill) return { kind: "skill", skill, args };
  const problem = catalog.problems.find((candidate) => candidate.name === name);
  if (problem) return { kind: "error", name, message: `/${name} cannot be used: ${problem.reason} (${problem.path})` };
  return { kind: "error", name, message: `Unknown command /${name}. Type /help for the list of commands; nothing was sent to the model.` };
}

export function slashCommandList(catalog: SkillCatalog): SlashCommandInfo[] {
  return [
    ...builtinSlashCommands.map(
      (command): SlashCommandInfo => ({
        name: command.name,
        description: command.description,
        kind: "builtin",
        ...("argumentHint" in command ? { argumentHint: command.argumentHint } : {}),
      }),
    ),
    ...catalog.skills.map(
      (skill): SlashCommandInfo => ({
        name: skill.name,
        description: skill.description,
        kind: skill.kind,
        ...(skill.argumentHint ? { argumentHint: skill.argumentHint } : {}),
      }),
    ),
  ];
}

/** `/help`: every command with its arguments and description, and the skill files that could not be loaded. */
export function renderSlashHelp(catalog: SkillCatalog): string {
  const line = (command: SlashCommandInfo) =>
    `  /${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ""} — ${command.description}${command.kind === "builtin" ? "" : ` (${command.kind})`}`;
  const lines = ["Slash commands:", ...slashCommandList(catalog).map(line)];
  if (catalog.problems.length > 0) {
    lines.push("", "Not loaded:", ...catalog.problems.map((problem) => `  /${problem.name} — ${problem.reason} (${problem.path})`));
  }
  return lines.join("\n");
}

/** The prompt a slash-invoked skill or command sends: which command ran, then its text. */
export function renderSlashPrompt(skill: SkillDefinition, args: string, text: string): string {
  return `<command-name>/${skill.name}</command-name>\n<command-args>${args}</command-args>\n\n${text}`;
}
