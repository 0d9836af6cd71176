/** Durations as people read them: 850 ms, 12.4 s, 3 min 05 s, 1 h 02 min. */
export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${String(Math.floor((ms % 60_000) / 1000)).padStart(2, "0")} s`;
  return `${Math.floor(ms / 3_600_000)} h ${String(Math.floor((ms % 3_600_000) / 60_000)).padStart(2, "0")} min`;
}

/** Time since the session started: +0:03.250, +1:02:03.000. */
export function formatOffset(ms: number): string {
  const sign = ms < 0 ? "-" : "+";
  const total = Math.abs(ms);
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = Math.floor((total % 60_000) / 1000);
  const millis = Math.floor(total % 1000);
  const clock = `${String(seconds).padStart(2, "0")}.${String(millis).padStart(3, "0")}`;
  return hours > 0 ? `${sign}${hours}:${String(minutes).padStart(2, "0")}:${clock}` : `${sign}${minutes}:${clock}`;
}

/** 950, 12.3k, 4.56M. */
export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 2 : 1)}k`;
  return `${(count / 1_000_000).toFixed(2)}M`;
}

export function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/**
 * A count with thousands separators: 100,000. Not `toLocaleString()`: its first call in a page loads the
 * locale's number data (65-140 ms measured in Chromium on this machine), on the timeline's first drawing.
 */
export function formatCount(count: number): string {
  const digits = String(Math.trunc(Math.abs(count)));
  let grouped = "";
  for (let end = digits.length; end > 0; end -= 3) grouped = `${digits.slice(Math.max(0, end - 3), end)}${grouped === "" ? "" : `,${grouped}`}`;
  return count < 0 ? `-${grouped}` : grouped;
}
