// Reads test counts back from the runners' own summaries: vitest ("Tests  1 failed | 7 passed | 2 skipped (10)"),
// Playwright ("12 passed (41.2s)", "2 skipped", "1 did not run") and node:test ("# pass 4"). Lines may carry
// turbo's "<package>:<task>: " prefix.
const vitestSummary = /\bTests\s+((?:\d+ \w+\s*(?:\|\s*)?)+)\(\d+\)\s*$/gm;
const playwrightPassed = /\s(\d+) passed \([\d.]+(?:ms|s|m|h)\)\s*$/gm;
const playwrightOther = /(?:^|:)\s+(\d+) (failed|skipped|flaky|did not run)\s*$/gm;
const nodeTest = /^# (pass|fail|skipped|todo) (\d+)\s*$/gm;

/** `{ passed, failed, skipped, todo }` summed over every summary in `text`. */
export function countTests(text) {
  const counts = { passed: 0, failed: 0, skipped: 0, todo: 0 };
  for (const match of text.matchAll(vitestSummary)) {
    for (const part of match[1].matchAll(/(\d+) (\w+)/g)) {
      const key = { passed: "passed", failed: "failed", skipped: "skipped", todo: "todo" }[part[2]];
      if (key) counts[key] += Number(part[1]);
    }
  }
  for (const match of text.matchAll(playwrightPassed)) counts.passed += Number(match[1]);
  for (const match of text.matchAll(playwrightOther)) {
    if (match[2] === "failed") counts.failed += Number(match[1]);
    else if (match[2] === "flaky") counts.passed += Number(match[1]);
    else counts.skipped += Number(match[1]);
  }
  for (const match of text.matchAll(nodeTest)) {
    const key = { pass: "passed", fail: "failed", skipped: "skipped", todo: "todo" }[match[1]];
    counts[key] += Number(match[2]);
  }
  return counts;
}
