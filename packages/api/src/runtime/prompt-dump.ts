import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/**
 * Where the latest request body of one conversation is kept with CAIRN_DUMP_PROMPTS=1:
 * `$CAIRN_HOME/debug/<session>.json`, and `<session>.<agent>.json` for a subagent's conversation.
 */
export function promptDumpPath(cairnHome: string, sessionId: string, agentId?: string): string {
  const safe = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, "_");
  return join(cairnHome, "debug", agentId ? `${safe(sessionId)}.${safe(agentId)}.json` : `${safe(sessionId)}.json`);
}

/**
 * A `fetch` that writes the body of each Messages API request to `path` before sending it, replacing
 * the previous one (the reference's dumpPromptsFetch: one conversation keeps only its latest request,
 * never the whole history in memory or on disk). Only the body is written, never the headers, so the
 * API key and auth tokens cannot end up in the file. The file is private to the user (0600).
 */
export function createPromptDumpFetch(path: string, base: typeof fetch = fetch): typeof fetch {
  let sequence = 0;
  const dumping = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const body = init?.body;
    if (init?.method === "POST" && typeof body === "string" && new URL(url).pathname.endsWith("/v1/messages")) {
      // Written beside the target and renamed over it: a reader never sees half a file.
      const temporary = `${path}.${process.pid}.${++sequence}.tmp`;
      try {
        await mkdir(dirname(path), { recursive: true, mode: 0o700 });
        await writeFile(temporary, body, { mode: 0o600 });
        await rename(temporary, path);
      } catch {
        // A debugging aid must never fail the request it records.
      }
    }
    return base(input, init);
  };
  return dumping as typeof fetch;
}
