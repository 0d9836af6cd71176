import type { SkillDefinition } from "../skills/definition.ts";
import type { MemoryFile, MemoryKind } from "./port.ts";

const DESCRIPTIONS: Record<MemoryKind, string> = {
  user: "user's private global instructions for all projects",
  project: "project instructions, checked into the codebase",
  local: "user's private project instructions, not checked in",
  nested: "project instructions for the directory it is in",
};

const describe = (file: MemoryFile) =>
  `Contents of ${file.path} (${DESCRIPTIONS[file.kind]}${file.importedFrom ? `, imported by ${file.importedFrom}` : ""}):\n\n${file.content.trim()}`;

/** The memory files as Claude Code's model gets them: one system reminder, each file named. */
export function renderMemoryReminder(files: readonly MemoryFile[], today: string): string | null {
  if (files.length === 0) return null;
  return [
    "<system-reminder>",
    "As you answer the user's questions, you can use the following context:",
    "# claudeMd",
    "Codebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.",
    "",
    files.map(describe).join("\n\n"),
    "",
    "# currentDate",
    `Today's date is ${today}.`,
    "",
    "IMPORTANT: this context may or may not be relevant to your tasks. You should not respond to this context unless it is highly relevant to your task.",
    "</system-reminder>",
  ].join("\n");
}

/** A subdirectory's memory, attached to the result of the tool call that first touched a file below it. */
export function renderNestedMemory(files: readonly MemoryFile[]): string | null {
  if (files.length === 0) return null;
  return ["<system-reminder>", files.map(describe).join("\n\n"), "</system-reminder>"].join("\n");
}

/** The skills the model may invoke with the Skill tool, by name and description. */
export function renderSkillListing(skills: readonly SkillDefinition[]): string | null {
  const invocable = skills.filter((skill) => !skill.disableModelInvocation);
  if (invocable.length === 0) return null;
  const lines = invocable.map((skill) => `- ${skill.name}: ${skill.description}${skill.argumentHint ? ` (arguments: ${skill.argumentHint})` : ""}`);
  return ["<system-reminder>", "The following skills are available for use with the Skill tool:", "", ...lines, "</system-reminder>"].join("\n");
}
