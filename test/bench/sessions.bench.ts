// Session persistence: loading a 1,000,000-line transcript (time, peak RSS, versus bare readline + JSON.parse),
// listing 10,000 sessions, append throughput under the durability policy, and a checkpoint after a one-file change.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openSessionIndex } from "@cairn/api";
import { createCheckpointStore, createJsonlTranscriptStore, listSessions } from "@cairn/core/node";
import type { ConversationMessage } from "@cairn/core/schema";
import { median, report } from "./report.ts";

const here = dirname(fileURLToPath(import.meta.url));
const LINES = 1_000_000;
const LOAD_ROUNDS = 3;
const SESSIONS = 10_000;
const WORKSPACE_FILES = 10_000;

export default async function run(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "cairn-bench-sessions-"));
  try {
    await benchLoad(root);
    await benchList(join(root, "list-home"));
    await benchAppend(join(root, "append-home"));
    await benchCheckpoint(root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

interface ChildFigures {
  count: number;
  wallMs: number;
  cpuMs: number;
  maxRssMb: number;
}

async function benchLoad(root: string): Promise<void> {
  const path = join(root, "big.jsonl");
  const generated = await generateTranscript(path, LINES);
  report("sessions.load_file_lines", generated.lines, "lines");
  report("sessions.load_file_size", (await stat(path)).size / 1024 ** 2, "MiB");
  const baseline: ChildFigures[] = [];
  const load: ChildFigures[] = [];
  // Interleaved rounds, each in a fresh process; medians resist a busy machine.
  for (let round = 0; round < LOAD_ROUNDS; round++) {
    baseline.push(await measureInChild("baseline", path));
    load.push(await measureInChild("load", path));
  }
  const pick = (figures: ChildFigures[], key: keyof ChildFigures) => median(figures.map((figure) => figure[key]));
  report("sessions.load_1m_ms", pick(load, "wallMs"), "ms");
  report("sessions.load_1m_cpu_ms", pick(load, "cpuMs"), "ms");
  report("sessions.load_1m_peak_rss", pick(load, "maxRssMb"), "MB");
  report("sessions.load_1m_messages_resumed", pick(load, "count"), "messages");
  report("sessions.readline_json_parse_1m_ms", pick(baseline, "wallMs"), "ms");
  report("sessions.readline_json_parse_1m_cpu_ms", pick(baseline, "cpuMs"), "ms");
  report("sessions.readline_json_parse_1m_peak_rss", pick(baseline, "maxRssMb"), "MB");
  report("sessions.load_vs_readline", pick(load, "wallMs") / pick(baseline, "wallMs"), "x");
  report("sessions.load_vs_readline_cpu", pick(load, "cpuMs") / pick(baseline, "cpuMs"), "x");
  await rm(path, { force: true });
}

function measureInChild(mode: "baseline" | "load", path: string): Promise<ChildFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(here, "sessions.bench-child.ts"), mode, path], {
      cwd: here,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`${mode} child exited with ${code}`));
      else resolve(JSON.parse(output) as ChildFigures);
    });
  });
}

/**
 * A long session as Cairn writes it: each turn is a prompt, a response with thinking, text and one to
 * three tool calls, their results, a final answer and a checkpoint line; now and then a tombstoned
 * response. Auto-compaction happens about every 250k tokens of content (a compact boundary and its
 * summary), as it must for a session this long to have fit in a context window. ~1 KB a line.
 */
export async function generateTranscript(path: string, lines: number): Promise<{ lines: number }> {
  const out = createWriteStream(path);
  const sessionId = randomUUID();
  const envelope = { sessionId, cwd: "/work/big", version: "bench", userType: "external", cairnSchema: 1 };
  let written = 0;
  let pending = "";
  const emit = async (line: object) => {
    pending += `${JSON.stringify(line)}\n`;
    written++;
    if (pending.length > 1 << 20) {
      if (!out.write(pending)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
      pending = "";
    }
  };
  const filler = (size: number, turn: number) => `turn ${turn} `.padEnd(size, "lorem ipsum dolor sit amet ");
  const timestamp = (turn: number) => new Date(Date.UTC(2026, 0, 1) + turn * 60_000).toISOString();
  await emit({ type: "cairn-session", sessionId, timestamp: timestamp(0), cwd: "/work/big", cairnSchema: 1, version: "bench" });
  let parent: string | null = null;
  let sinceCompact = 0;
  for (let turn = 0; written < lines; turn++) {
    const ts = timestamp(turn);
    if (sinceCompact > 900_000) {
      const boundary = randomUUID();
      await emit({
        ...envelope,
        type: "system",
        subtype: "compact_boundary",
        uuid: boundary,
        parentUuid: null,
        logicalParentUuid: parent,
        timestamp: ts,
        content: "Conversation compacted",
        compactMetadata: { trigger: "auto", preTokens: 180_000 },
      });
      const summary = randomUUID();
      await emit({
        ...envelope,
        type: "user",
        uuid: summary,
        parentUuid: boundary,
        timestamp: ts,
        isCompactSummary: true,
        message: { role: "user", content: filler(4000, turn) },
      });
      parent = summary;
      sinceCompact = 0;
    }
    const prompt = randomUUID();
    await emit({ ...envelope, type: "user", uuid: prompt, parentUuid: parent, timestamp: ts, message: { role: "user", content: filler(200, turn) } });
    await emit({ type: "cairn-checkpoint", sessionId, timestamp: ts, messageUuid: prompt, commit: "0".repeat(40), cairnSchema: 1 });
    const toolIds = Array.from({ length: 1 + (turn % 3) }, () => `toolu_${randomUUID().replaceAll("-", "")}`);
    const response = randomUUID();
    const responseMessage = {
      id: `msg_${randomUUID().replaceAll("-", "")}`,
      type: "message",
      role: "assistant",
      model: "claude-opus-5-5",
      content: [
        { type: "thinking", thinking: filler(300, turn), signature: "sig" },
        { type: "text", text: filler(200, turn) },
        ...toolIds.map((id) => ({ type: "tool_use", id, name: "Read", input: { file_path: `/work/big/src/file${turn % 100}.ts` } })),
      ],
      stop_reason: "tool_use",
      usage: { input_tokens: 1200, output_tokens: 300, cache_read_input_tokens: 50_000 },
    };
    if (turn % 50 === 7) {
      const discarded = randomUUID();
      await emit({ ...envelope, type: "assistant", uuid: discarded, parentUuid: prompt, timestamp: ts, isPartial: true, message: responseMessage });
      await emit({ type: "tombstone", sessionId, timestamp: ts, tombstoneOf: discarded, reason: "stream failed", cairnSchema: 1 });
    }
    await emit({ ...envelope, type: "assistant", uuid: response, parentUuid: prompt, timestamp: ts, message: responseMessage });
    parent = response;
    for (const id of toolIds) {
      const result = randomUUID();
      await emit({
        ...envelope,
        type: "user",
        uuid: result,
        parentUuid: parent,
        timestamp: ts,
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: filler(1400, turn) }] },
        toolCall: { toolUseId: id, name: "Read", startedAt: 0, endedAt: 5, durationMs: 5, permissionWaitMs: 0, isError: false },
      });
      parent = result;
    }
    const answer = randomUUID();
    await emit({
      ...envelope,
      type: "assistant",
      uuid: answer,
      parentUuid: parent,
      timestamp: ts,
      message: {
        id: `msg_${randomUUID().replaceAll("-", "")}`,
        type: "message",
        role: "assistant",
        model: "claude-opus-5-5",
        content: [{ type: "text", text: filler(600, turn) }],
        stop_reason: "end_turn",
      },
    });
    parent = answer;
    sinceCompact += 5000 + toolIds.length * 1500;
  }
  out.end(pending);
  await new Promise<void>((resolve, reject) => out.on("finish", () => resolve()).on("error", reject));
  return { lines: written };
}

async function benchList(cairnHome: string): Promise<void> {
  const projectDir = join(cairnHome, "projects", "-work-many");
  mkdirSync(projectDir, { recursive: true });
  for (let index = 0; index < SESSIONS; index++) {
    const sessionId = `session-${String(index).padStart(5, "0")}`;
    const ts = new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString();
    const lines = [
      { type: "cairn-session", sessionId, timestamp: ts, cwd: "/work/many", cairnSchema: 1 },
      {
        type: "user",
        uuid: randomUUID(),
        parentUuid: null,
        timestamp: ts,
        sessionId,
        message: { role: "user", content: `Prompt number ${index}: fix the failing test` },
      },
      {
        type: "assistant",
        uuid: randomUUID(),
        parentUuid: null,
        timestamp: ts,
        sessionId,
        message: { id: `msg_${index}`, role: "assistant", model: "m", content: [{ type: "text", text: "Done." }] },
      },
    ];
    writeFileSync(join(projectDir, `${sessionId}.jsonl`), lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  }
  let started = performance.now();
  const headTail = await listSessions(cairnHome, "/work/many");
  report("sessions.list_10k_head_tail_ms", performance.now() - started, "ms");
  if (headTail.length !== SESSIONS) throw new Error(`listed ${headTail.length}`);

  const index = openSessionIndex({ cairnHome });
  try {
    started = performance.now();
    await index.list({ cwd: "/work/many", limit: SESSIONS });
    report("sessions.list_10k_index_cold_ms", performance.now() - started, "ms");
    const warm: number[] = [];
    const warmCpu: number[] = [];
    for (let round = 0; round < 5; round++) {
      const cpu = process.cpuUsage();
      started = performance.now();
      const rows = await index.list({ cwd: "/work/many", limit: SESSIONS });
      warm.push(performance.now() - started);
      warmCpu.push(cpuMsSince(cpu));
      if (rows.length !== SESSIONS) throw new Error(`listed ${rows.length}`);
    }
    // Warm: the index exists; each list still stats every file for staleness, then queries.
    report("sessions.list_10k_index_warm_ms", median(warm), "ms");
    report("sessions.list_10k_index_warm_cpu_ms", median(warmCpu), "ms");
    started = performance.now();
    index.query({ cwd: "/work/many", limit: 50, search: "number 42" });
    report("sessions.search_10k_index_ms", performance.now() - started, "ms");
  } finally {
    index.close();
  }
}

async function benchAppend(cairnHome: string): Promise<void> {
  const durable = await appendTurns(cairnHome, "user-messages");
  report("sessions.append_lines_per_s", durable.linesPerSecond, "lines/s");
  report("sessions.append_fsyncs_per_s", durable.syncsPerSecond, "fsync/s");
  // For comparison: the same appends without fdatasync (what the policy costs).
  report("sessions.append_no_fsync_lines_per_s", (await appendTurns(cairnHome, "never")).linesPerSecond, "lines/s");
}

async function appendTurns(cairnHome: string, fsync: "user-messages" | "never"): Promise<{ linesPerSecond: number; syncsPerSecond: number }> {
  const store = createJsonlTranscriptStore({ cairnHome, cwd: "/work/append", sessionId: randomUUID(), version: "bench", fsync });
  const timestamp = new Date().toISOString();
  let parent: string | null = null;
  const next = (message: ConversationMessage) => {
    parent = message.uuid;
    return store.appendMessage(message);
  };
  const TURNS = 2000;
  const started = performance.now();
  // A turn as the session runner writes it, each append awaited: prompt, response, two results, answer.
  for (let turn = 0; turn < TURNS; turn++) {
    await next({ type: "user", uuid: randomUUID(), parentUuid: parent, timestamp, message: { role: "user", content: `prompt ${turn}` } });
    await next({
      type: "assistant",
      uuid: randomUUID(),
      parentUuid: parent,
      timestamp,
      message: {
        id: `msg_${turn}a`,
        role: "assistant",
        model: "m",
        content: [
          { type: "text", text: "x".repeat(500) },
          { type: "tool_use", id: `t${turn}a`, name: "Read", input: {} },
          { type: "tool_use", id: `t${turn}b`, name: "Read", input: {} },
        ],
      },
    });
    await next({
      type: "user",
      uuid: randomUUID(),
      parentUuid: parent,
      timestamp,
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: `t${turn}a`, content: "y".repeat(1500) }] },
    });
    await next({
      type: "user",
      uuid: randomUUID(),
      parentUuid: parent,
      timestamp,
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: `t${turn}b`, content: "y".repeat(1500) }] },
    });
    await next({
      type: "assistant",
      uuid: randomUUID(),
      parentUuid: parent,
      timestamp,
      message: { id: `msg_${turn}b`, role: "assistant", model: "m", content: [{ type: "text", text: "done" }] },
    });
  }
  await store.close();
  const seconds = (performance.now() - started) / 1000;
  return { linesPerSecond: (TURNS * 5) / seconds, syncsPerSecond: store.syncCount / seconds };
}

async function benchCheckpoint(root: string): Promise<void> {
  const workspace = join(root, "workspace");
  for (let directory = 0; directory < WORKSPACE_FILES / 100; directory++) {
    mkdirSync(join(workspace, `pkg${directory}`, "src"), { recursive: true });
    for (let file = 0; file < 100; file++) {
      writeFileSync(join(workspace, `pkg${directory}`, "src", `file${file}.ts`), `export const value${file} = ${directory * 100 + file};\n`.repeat(10));
    }
  }
  writeFileSync(join(workspace, ".gitignore"), "node_modules/\n");
  const store = createCheckpointStore({ cairnHome: join(root, "checkpoint-home"), workspaceRoot: workspace });
  let started = performance.now();
  await store.snapshot("initial");
  report("sessions.checkpoint_10k_initial_ms", performance.now() - started, "ms");
  const times: number[] = [];
  const ROUNDS = 7;
  const childCpuBefore = childrenCpuMs();
  for (let round = 0; round < ROUNDS; round++) {
    writeFileSync(join(workspace, "pkg42", "src", "file7.ts"), `export const changed = ${round};\n`);
    started = performance.now();
    await store.snapshot(`turn ${round}`);
    times.push(performance.now() - started);
  }
  report("sessions.checkpoint_10k_one_change_ms", median(times), "ms");
  // CPU time of the git processes per snapshot: what a snapshot costs without other load on the machine.
  report("sessions.checkpoint_10k_one_change_git_cpu_ms", (childrenCpuMs() - childCpuBefore) / ROUNDS, "ms");
  started = performance.now();
  await store.snapshot("no change");
  report("sessions.checkpoint_10k_no_change_ms", performance.now() - started, "ms");
}

function cpuMsSince(before: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** User + system CPU time of this process's waited-for children, from /proc (Linux; 10 ms ticks). */
function childrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  // After "pid (comm) ": state is field 3; cutime and cstime are fields 16 and 17.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}
