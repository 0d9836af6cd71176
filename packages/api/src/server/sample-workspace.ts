import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

// Plain JavaScript run by Node's built-in test runner: `npm test` works as created, offline, with nothing to install.
const SAMPLE_FILES: Record<string, string> = {
  "README.md": `# Sample project

A tiny JavaScript project to try Cairn with. Things to ask the agent:

- "search TODO": find what is left to do
- "read src/math.js"
- "run \`npm test\`": run the tests
- "Implement the TODO in src/math.js and add a test for it" (needs a real model: set ANTHROPIC_API_KEY)

Run the tests with \`npm test\` (Node's built-in test runner; nothing to install).
`,
  "package.json": `${JSON.stringify({ name: "cairn-sample", private: true, type: "module", scripts: { test: "node --test" } }, null, 2)}\n`,
  "src/math.js": `/** The sum of two numbers. */
export function add(a, b) {
  return a + b;
}

// TODO: implement factorial: n! for whole numbers n >= 0; throw a RangeError for anything else. Then test it in
// test/math.test.js.
export function factorial(n) {
  throw new Error(\`factorial(\${n}) is not implemented yet\`);
}
`,
  "test/math.test.js": `import assert from "node:assert/strict";
import { test } from "node:test";
import { add } from "../src/math.js";

test("add", () => {
  assert.equal(add(2, 3), 5);
  assert.equal(add(-1, 1), 0);
});
`,
};

/**
 * The folder `cairn serve` opens when no --workspace is given: `$CAIRN_HOME/workspaces/sample`,
 * created with a few files on first run and left alone afterwards (the user's edits stay).
 */
export async function ensureSampleWorkspace(cairnHome: string): Promise<string> {
  const root = join(cairnHome, "workspaces", "sample");
  const exists = await stat(root).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (exists) return root;
  for (const [name, content] of Object.entries(SAMPLE_FILES)) {
    const path = join(root, name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content, { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
  }
  return root;
}
