// The performance targets (issue 17 and earlier rounds), checked against the BENCH lines of one run.
// A missed target is reported, never fatal: the figures of a shared machine move with its load.

export type BenchFigure = { value: number; unit: string };

export type Target = {
  /** What is promised, in words. */
  label: string;
  /** The BENCH line it is read from. */
  metric: string;
  comparison: "<=" | "<";
  limit: number;
  unit: string;
};

export const TARGETS: readonly Target[] = [
  {
    label: "timeline: IDE page interactive at 100k events (server cache warm)",
    metric: "timeline.ide_interactive",
    comparison: "<=",
    limit: 1_000,
    unit: "ms",
  },
  {
    label: "timeline: IDE page interactive at 100k events (empty server cache)",
    metric: "timeline.ide_interactive_cold",
    comparison: "<=",
    limit: 1_000,
    unit: "ms",
  },
  { label: "timeline: IDE page JS heap at 100k events", metric: "timeline.ide_js_heap_used", comparison: "<=", limit: 150, unit: "MB" },
  {
    label: "timeline: IDE page interactive at 1M events (server cache warm)",
    metric: "timeline.ide_1m_interactive",
    comparison: "<",
    limit: 5_000,
    unit: "ms",
  },
  {
    label: "timeline: IDE page search at 1M events (typed to counted)",
    metric: "timeline.ide_1m_search",
    comparison: "<",
    limit: 1_000,
    unit: "ms",
  },
  {
    label: "timeline: IDE page scrolling at 1M events (frame time p95)",
    metric: "timeline.ide_1m_scroll_frame_p95",
    comparison: "<=",
    limit: 33,
    unit: "ms",
  },
  { label: "timeline: exported file interactive at 100k events", metric: "timeline.interactive", comparison: "<=", limit: 1_500, unit: "ms" },
  { label: "cold start: first request after process start", metric: "cold.first_request_ms", comparison: "<=", limit: 200, unit: "ms" },
  { label: "cold start: one-turn `cairn -p` run", metric: "cold.one_turn_wall_ms", comparison: "<=", limit: 350, unit: "ms" },
  { label: "stream: query() CPU vs raw SDK CPU", metric: "stream.query_cpu_vs_raw", comparison: "<=", limit: 110, unit: "%" },
  { label: "live sessions: p99 simulator→browser at 100 sessions", metric: "events.latency_p99_at_100", comparison: "<", limit: 50, unit: "ms" },
  { label: "live sessions: idle memory per session", metric: "events.rss_per_idle_session", comparison: "<", limit: 50, unit: "KiB" },
  {
    label: "distributed: p99 simulator→subscriber at 100 sessions over 2 nodes",
    metric: "distributed.latency_p99_at_100",
    comparison: "<",
    limit: 50,
    unit: "ms",
  },
  { label: "distributed: list 10,000 sessions from PostgreSQL", metric: "distributed.list_10k_sessions_store_ms", comparison: "<", limit: 100, unit: "ms" },
  {
    label: "failover: kill -9 of the owner to the next command answered on another node",
    metric: "failover.kill9_to_next_command_max",
    comparison: "<=",
    limit: 10_000,
    unit: "ms",
  },
  { label: "memory + skills: first turn in 10,000 directories", metric: "memory.first_turn_ms", comparison: "<=", limit: 200, unit: "ms" },
  { label: "memory + skills: per-turn check (p99)", metric: "memory.per_turn_ms", comparison: "<=", limit: 5, unit: "ms" },
  { label: "30-turn session: wall vs bare SDK loop", metric: "cli30.wall_vs_bare_loop", comparison: "<=", limit: 1.2, unit: "x" },
  { label: "telemetry on vs off, 30-turn session (wall)", metric: "telemetry.on_vs_off_wall", comparison: "<=", limit: 1.05, unit: "x" },
  { label: "telemetry on vs off, 30-turn session (CPU)", metric: "telemetry.on_vs_off_cpu", comparison: "<=", limit: 1.05, unit: "x" },
  {
    label: "auto mode: decision from the warm classifier cache (p99)",
    metric: "permissions.auto_cached.decision_p99",
    comparison: "<",
    limit: 1_000,
    unit: "us",
  },
];

const BENCH_LINE = /^BENCH (\S+) (-?[\d.]+(?:e[+-]?\d+)?|NaN) (\S+)$/;

/** The figure a line states, or null for any other line. */
export function parseBenchLine(line: string): [string, BenchFigure] | null {
  const match = BENCH_LINE.exec(line.trim());
  if (!match) return null;
  return [match[1]!, { value: Number(match[2]), unit: match[3]! }];
}

export type TargetRow = { target: Target; measured: BenchFigure | undefined; met: boolean | null };

/** Each target with its figure and verdict: null when the run did not measure it. */
export function checkTargets(figures: ReadonlyMap<string, BenchFigure>, targets: readonly Target[] = TARGETS): TargetRow[] {
  return targets.map((target) => {
    const measured = figures.get(target.metric);
    if (!measured || !Number.isFinite(measured.value)) return { target, measured, met: null };
    const met = target.comparison === "<=" ? measured.value <= target.limit : measured.value < target.limit;
    return { target, measured, met };
  });
}

/** A plain-text table: target, limit, measured value, verdict. */
export function formatTargetTable(rows: readonly TargetRow[]): string {
  const cells = rows.map((row) => [
    row.target.label,
    `${row.target.comparison} ${row.target.limit} ${row.target.unit}`,
    row.measured && Number.isFinite(row.measured.value) ? `${row.measured.value} ${row.measured.unit}` : "not measured",
    row.met === null ? "—" : row.met ? "met" : "MISSED",
  ]);
  const header = ["target", "limit", "measured", "verdict"];
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((cell) => cell[column]!.length)));
  const line = (cell: string[]) => cell.map((text, column) => text.padEnd(widths[column]!)).join(" | ");
  return [line(header), widths.map((width) => "-".repeat(width)).join("-|-"), ...cells.map(line)].join("\n");
}
