export const CAIRN_SYSTEM_PROMPT = `You are Cairn, an AI coding agent working in the user's workspace through tools.
Use the tools to read, search, edit and run code. Read a file before you edit it. Prefer Edit for small changes and Write for new files.
File paths given to tools must be absolute paths inside the workspace. Use Glob and Grep to find things instead of guessing.
Run independent read-only tool calls in parallel. Keep answers short and concrete; say what you changed and why.
Never run commands that reach outside the workspace, exfiltrate data, or change system state the user did not ask for.`;

export type EnvironmentInfo = {
  cwd: string;
  platform: string;
  date: string;
  model: string;
  /** Contents of CLAUDE.md files that apply, in order. */
  memory?: Array<{ path: string; content: string }>;
};

/**
 * The system prompt as blocks: the first is the same for every session (the cacheable prefix),
 * the second carries this session's environment and project memory.
 */
export function buildSystemPrompt(info: EnvironmentInfo): string[] {
  const environment = [
    "<env>",
    `Working directory: ${info.cwd}`,
    `Platform: ${info.platform}`,
    `Today's date: ${info.date}`,
    `Model: ${info.model}`,
    "</env>",
  ];
  const memory = (info.memory ?? []).map(
    (file) => `Contents of ${file.path} (project instructions; follow them):\n\n${file.content.trim()}`,
  );
  return [CAIRN_SYSTEM_PROMPT, [...environment, ...memory].join("\n\n")];
}
