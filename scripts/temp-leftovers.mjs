// What a test run left in its own temporary folder, told by kind: mkdtemp's random six-character tail is dropped, so
// "cairn-otel-ws-a1B2c3" and "cairn-otel-ws-Zz9y8x" count as two "cairn-otel-ws".

/** `"2 cairn-otel-ws, 1 model-sim-cli"`: the entries grouped by name without their random tail, most first. */
export function describeLeftovers(names) {
  const counts = new Map();
  for (const name of names) {
    const kind = name.replace(/-[A-Za-z0-9]{6}$/, "");
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([kind, count]) => `${count} ${kind}`)
    .join(", ");
}
