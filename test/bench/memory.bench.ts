// Memory files and skill discovery in a workspace of 10,000 directories: the first turn (load every memory
// file and import, find every skill and command) and the check made before every later request (ask the
// file watch, reload nothing), then the turn after an edit (stat, reload). Targets: first turn ≤ 200 ms,
// per-turn check ≤ 5 ms (p99).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSessionMemory } from "@cairn/core";
import { createNodeMemoryFs } from "@cairn/core/node";
import { median, percentile, report } from "./report.ts";

const TOP = 100;
const PER_TOP = 99;
const TURNS = 500;

async function buildWorkspace(root: string, home: string): Promise<void> {
  const dirs: string[] = [];
  for (let top = 0; top < TOP; top++) {
    dirs.push(join(root, `pkg${top}`));
    for (let sub = 0; sub < PER_TOP; sub++) dirs.push(join(root, `pkg${top}`, `mod${sub}`));
  }
  for (const dir of dirs) await mkdir(dir, { recursive: true });
  await Promise.all(dirs.filter((_dir, index) => index % 10 === 0).map((dir) => writeFile(join(dir, "index.ts"), "export {};\n")));
  await writeFile(join(root, "CLAUDE.md"), `# Project\nSee @docs/conventions.md and @docs/testing.md.\n${"Rule line.\n".repeat(200)}`);
  await mkdir(join(root, "docs"), { recursive: true });
  await writeFile(join(root, "docs", "conventions.md"), `Conventions @style.md\n${"Convention.\n".repeat(100)}`);
  await writeFile(join(root, "docs", "style.md"), "Two-space indent.\n");
  await writeFile(join(root, "docs", "testing.md"), "Run the tests.\n");
  await writeFile(join(root, "CLAUDE.local.md"), "Local notes.\n");
  await writeFile(join(root, "pkg7", "mod3", "CLAUDE.md"), "Nested rules.\n");
  for (let index = 0; index < 20; index++) {
    const dir = join(root, ".claude", "skills", `skill-${index}`);
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, "SKILL.md"),
      `---\nname: skill-${index}\ndescription: Skill number ${index}\nallowed-tools: Read, Grep\n---\nDo task ${index} with $ARGUMENTS.\n`,
    );
  }
  await mkdir(join(root, ".claude", "commands"), { recursive: true });
  for (let index = 0; index < 10; index++)
    await writeFile(join(root, ".claude", "commands", `cmd-${index}.md`), `---\ndescription: Command ${index}\n---\nRun $1.\n`);
  await mkdir(join(home, ".claude", "skills", "user-skill"), { recursive: true });
  await writeFile(join(home, ".claude", "CLAUDE.md"), "User rules.\n");
  await writeFile(join(home, ".claude", "skills", "user-skill", "SKILL.md"), "---\ndescription: A user skill\n---\nBody.\n");
}

export default async function run(): Promise<void> {
  const base = await mkdtemp(join(tmpdir(), "cairn-bench-memory-"));
  const root = join(base, "ws");
  const home = join(base, "home");
  try {
    await buildWorkspace(root, home);
    const fs = createNodeMemoryFs();
    const open = () =>
      createSessionMemory({ fs, workspaceRoot: root, homeDir: home, cairnHome: join(home, ".cairn"), today: () => "2026-12-01", trusted: () => true });

    // First turn: a new session loads memory (with imports) and discovers skills and commands.
    const firstTurns: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const memory = open();
      const started = performance.now();
      const { reminder } = await memory.prefetch();
      firstTurns.push(performance.now() - started);
      memory.close();
      if (!reminder?.includes("Two-space indent.") || !reminder.includes("- skill-19: Skill number 19"))
        throw new Error("the first turn did not load the memory and skills");
    }

    // Later turns: the check before every request, nothing changed.
    const memory = open();
    await memory.prefetch();
    const perTurn: number[] = [];
    for (let turn = 0; turn < TURNS; turn++) {
      const started = performance.now();
      await memory.prefetch();
      perTurn.push(performance.now() - started);
    }
    // An edit reaches the very next turn.
    await writeFile(join(root, "CLAUDE.local.md"), "Local notes, edited.\n");
    const editStarted = performance.now();
    const edited = await memory.prefetch();
    const editTurnMs = performance.now() - editStarted;
    if (!edited.reminder?.includes("Local notes, edited.")) throw new Error("the turn after an edit did not see it");
    const nestedStarted = performance.now();
    const nested = await memory.nestedFor(join(root, "pkg7", "mod3", "index.ts"));
    const nestedMs = performance.now() - nestedStarted;
    if (!nested?.includes("Nested rules.")) throw new Error("nested memory was not found");
    memory.close();

    report("memory.first_turn_ms", median(firstTurns), "ms");
    report("memory.per_turn_ms", percentile(perTurn, 99), "ms");
    report("memory.per_turn_median_ms", median(perTurn), "ms");
    report("memory.edit_turn_ms", editTurnMs, "ms");
    report("memory.nested_first_lookup_ms", nestedMs, "ms");
    report("memory.workspace_directories", TOP * (PER_TOP + 1), "dirs");
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
