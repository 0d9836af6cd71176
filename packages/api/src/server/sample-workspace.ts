import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

const SAMPLE_FILES: Record<string, string> = {
  "README.md": `# Sample project

A tiny TypeScript project to try Cairn with. Things to ask the agent:

- "search TODO": find what is left to do
- "read src/math.ts"
- "Implement the TODO in src/math.ts and make the tests pass"

Run the tests with \`npm install && npm test\` (Node's test runner through tsx).
`,
  "package.json": `${JSON.stringify(
    {
      name: "cairn-sample",
      private: true,
      type: "module",
      scripts: { test: "tsx --test test/*.test.ts" },
      devDependencies: { tsx: "4.23.15" },
    },
    null,
    2,
  )}\n`,
  "src/math.ts": `export function add(a: number, b: number): number {
  return a + b;
}

// TODO: implement factorial: n! for whole numbers n >= 0; throw a RangeError for anything else.
export function factorial(n: number): number {
  throw new Error(\`factorial(\${n}) is not implemented yet\`);
}
`,
  "test/math.test.ts": `import assert from "node:assert/strict";
import { test } from "node:test";
import { add, factorial } from "../src/math.ts";

test("add", () => {
  assert.equal(add(2, 3), 5);
});

test("factorial", () => {
  assert.equal(factorial(0), 1);
  assert.equal(factorial(5), 120);
  assert.throws(() => factorial(-1), RangeError);
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
