import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repairForResume } from "@cairn/core";
import { loadTranscript, sessionTranscriptPath } from "@cairn/core/node";
import type { ConversationMessage } from "@cairn/core/schema";

const here = dirname(fileURLToPath(import.meta.url));
const child = join(here, "session-crash.child.ts");
const KILLS = 24;
const SESSIONS = 4;
const cwd = "/crash/workspace";

let cairnHome: string;
beforeAll(async () => {
  cairnHome = await mkdtemp(join(tmpdir(), "cairn-crash-"));
});
afterAll(async () => {
  await rm(cairnHome, { recursive: true, force: true });
});

/** Runs the child until `acksBeforeKill` prompts are acknowledged, then SIGKILLs it after a random short delay. */
function runAndKill(sessionId: string, seed: number, acksBeforeKill: number, delayMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, ["--import", "tsx", child, cairnHome, cwd, sessionId, String(seed)], {
      cwd: here,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const acks: string[] = [];
    let stderr = "";
    let killing = false;
    process_.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
    const killSoon = () => {
      if (killing) return;
      killing = true;
      setTimeout(() => process_.kill("SIGKILL"), delayMs);
    };
    createInterface({ input: process_.stdout }).on("line", (line) => {
      if (line === "READY" && acksBeforeKill === 0) killSoon();
      if (line.startsWith("ACK ")) {
        // Recorded before the kill is even scheduled: an acknowledged prompt must survive it.
        acks.push(line.slice(4));
        if (acks.length >= acksBeforeKill) killSoon();
      }
    });
    process_.on("error", reject);
    process_.on("exit", (code, signal) => {
      if (signal === "SIGKILL") resolve(acks);
      else reject(new Error(`child exited on its own (code ${code}): ${stderr}`));
    });
  });
}

function toolPairs(messages: ConversationMessage[]): { uses: string[]; results: string[] } {
  const uses: string[] = [];
  const results: string[] = [];
  for (const message of messages) {
    if (message.type === "system" || typeof message.message.content === "string") continue;
    for (const block of message.message.content) {
      if (block.type === "tool_use") uses.push(block.id);
      if (block.type === "tool_result") results.push(block.tool_use_id);
    }
  }
  return { uses: uses.sort(), results: results.sort() };
}

describe("crash safety of session transcripts", () => {
  it(`keeps every acknowledged prompt across ${KILLS} SIGKILLs at random points`, { timeout: 300_000 }, async () => {
    const acknowledged = new Map<string, string[]>();
    for (let kill = 0; kill < KILLS; kill++) {
      const sessionId = `crash-${kill % SESSIONS}`;
      const seed = 1000 + kill;
      const acksBeforeKill = seed % 5;
      const delayMs = (seed * 7919) % 25;
      const acks = await runAndKill(sessionId, seed, acksBeforeKill, delayMs);
      acknowledged.set(sessionId, [...(acknowledged.get(sessionId) ?? []), ...acks]);

      const path = sessionTranscriptPath({ cairnHome, cwd, sessionId });
      if (!existsSync(path)) {
        expect(acknowledged.get(sessionId)).toEqual([]);
        continue;
      }
      const loaded = await loadTranscript(path);
      // Writes are whole lines and a reopened store cuts off a torn tail: nothing is malformed mid-file.
      expect(loaded.report.malformedLines).toBe(0);
      expect(loaded.report.brokenLinks).toBe(0);
      const present = new Set(loaded.messages.map((message) => message.uuid));
      const missing = (acknowledged.get(sessionId) ?? []).filter((uuid) => !present.has(uuid));
      expect(missing).toEqual([]);

      const repaired = repairForResume(loaded.messages);
      const { uses, results } = toolPairs(repaired);
      expect(results).toEqual(uses);
    }
    const total = [...acknowledged.values()].reduce((sum, acks) => sum + acks.length, 0);
    expect(total).toBeGreaterThan(KILLS);
  });
});
