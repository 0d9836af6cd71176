import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

// Request bodies and transcript lines are parsed JSON: loosely typed on purpose, the assertions check their shape.
export type Body = Record<string, any>;

export const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
export const read = (id: string, path: string) => ({ content: [{ type: "tool_use" as const, id, name: "Read", input: { file_path: path } }] });

/** Every tool_result the request carried, by tool_use id, as text. */
export function toolResultsOf(body: Body): Map<string, string> {
  const results = new Map<string, string>();
  for (const message of body.messages as Body[]) {
    if (typeof message.content === "string") continue;
    for (const block of message.content as Body[]) {
      if (block.type !== "tool_result") continue;
      const content = typeof block.content === "string" ? block.content : (block.content as Body[]).map((part) => part.text ?? "").join("");
      results.set(block.tool_use_id as string, content);
    }
  }
  return results;
}

/** The transcript of a session under $CAIRN_HOME/projects/<project>/. */
export async function transcriptFile(cairnHome: string, sessionId: string): Promise<string> {
  const projects = join(cairnHome, "projects");
  for (const project of await readdir(projects)) {
    const candidate = join(projects, project, `${sessionId}.jsonl`);
    if ((await readdir(join(projects, project))).includes(`${sessionId}.jsonl`)) return candidate;
  }
  throw new Error(`no transcript for ${sessionId} under ${projects}`);
}

/** Moves every timestamp of a transcript `ms` into the past, as if the session had been idle that long. */
export async function ageTranscript(path: string, ms: number): Promise<void> {
  const lines = (await readFile(path, "utf8")).split("\n").filter((line) => line.trim() !== "");
  const aged = lines.map((line) => {
    const entry = JSON.parse(line) as Body;
    if (typeof entry.timestamp === "string") entry.timestamp = new Date(Date.parse(entry.timestamp) - ms).toISOString();
    return JSON.stringify(entry);
  });
  await writeFile(path, `${aged.join("\n")}\n`);
}
