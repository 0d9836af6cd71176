import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The files every e2e workspace starts with; tests that change a file use their own. */
export const workspaceFiles: Record<string, string> = {
  "README.md": "# Sample\n\nA small project the e2e tests work on.\n",
  "src/greet.ts": 'export function greet(name: string): string {\n  return "Hello, " + name;\n}\n',
  "src/math.ts": "export const add = (a: number, b: number): number => a + b;\n",
  "src/deny-me.ts": 'export const style = "double";\n',
  "notes/todo.txt": "buy milk\n",
};

export function writeWorkspace(root: string, files: Record<string, string> = workspaceFiles): void {
  for (const [relative, content] of Object.entries(files)) {
    const path = join(root, relative);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, content);
  }
}
