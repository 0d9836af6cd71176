import { z } from "zod";
import { toolInputSchema } from "../tools/input-schema.ts";
import { sessionMemoryOf } from "../memory/session-memory.ts";
import type { Tool } from "../tools/tool.ts";
import { grantSkillTools, renderSkillPrompt, useSkillModel } from "./invoke.ts";

export const SKILL_TOOL_NAME = "Skill";

export const skillInputSchema = toolInputSchema(SKILL_TOOL_NAME, () =>
  z.strictObject({
    skill: z.string().min(1).describe('The skill name, e.g. "release-notes" (a leading "/" is ignored)'),
    args: z.string().optional().describe("Arguments for the skill, substituted for $ARGUMENTS"),
  }),
);
export type SkillInput = z.infer<typeof skillInputSchema>;
export type SkillOutput = { skill: string; directory: string; grantedRules: string[]; model?: string };

const description = `Execute a skill within the main conversation.

Skills are folders of instructions (a SKILL.md) and supporting files that give you a specialised capability. The skills available in this workspace are listed in a system reminder at the start of the conversation, by name and description.

When a user's request matches a skill's description, or the user names a skill (e.g. "/release-notes"), invoke it with this tool before doing the work yourself: { "skill": "release-notes", "args": "v1.2.0" }. The skill's instructions are returned with its base directory, so you can read the files it mentions. Do not invoke a skill that is not listed, and do not invoke the same skill again while its instructions are already in the conversation.`;

/** Claude Code's Skill tool: loads a skill's body into the conversation and grants its `allowed-tools` for the run. */
export function createSkillTool(): Tool<SkillInput, SkillOutput> {
  return {
    name: SKILL_TOOL_NAME,
    inputSchema: skillInputSchema,
    description,
    isReadOnly: () => true,
    isConcurrencySafe: () => false,
    async checkPermissions() {
      return { behavior: "allow", reason: { type: "tool", reason: "Loading a skill's instructions needs no permission" } };
    },
    async call(input, context) {
      const memory = sessionMemoryOf(context);
      if (!memory) throw new Error("Skills are not available in this session.");
      const name = input.skill.replace(/^\//, "").trim();
      const catalog = await memory.skills();
      const skill = catalog.skills.find((candidate) => candidate.name === name);
      if (!skill) {
        const problem = catalog.problems.find((candidate) => candidate.name === name);
        if (problem) throw new Error(`The skill "${name}" cannot be used: ${problem.reason} (${problem.path}).`);
        const available = catalog.skills.filter((candidate) => !candidate.disableModelInvocation).map((candidate) => candidate.name);
        throw new Error(`Unknown skill "${name}". Available skills: ${available.length > 0 ? available.join(", ") : "none"}.`);
      }
      if (skill.disableModelInvocation) throw new Error(`The skill "${name}" can only be invoked by the user, as /${name}.`);
      const body = await memory.skillBody(skill);
      if (body === null) throw new Error(`The skill "${name}" could not be read from ${skill.path}.`);
      const grantedRules = grantSkillTools(skill, context, memory.grants);
      // The main conversation only: a subagent keeps the model it was started with.
      const model = context.agentId ? undefined : useSkillModel(skill, context);
      const granted = grantedRules.length > 0 ? `\n\nAllowed without asking while this skill is in use: ${grantedRules.join(", ")}` : "";
      return {
        output: { skill: name, directory: skill.directory, grantedRules, ...(model ? { model } : {}) },
        content: `Launching skill: ${name}\n\n${renderSkillPrompt(skill, body, input.args ?? "")}${granted}`,
      };
    },
  };
}
