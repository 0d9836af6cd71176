import { mkdir, symlink, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/**
 * A small tree that exercises what search must get right: nested ignore files and negations, hidden
 * files, VCS directories, symbolic links (never followed), binary and very long lines, Unicode names,
 * CRLF endings. Every file gets its own modification time, in the order listed (the last is newest).
 */
export const corpusFiles: ReadonlyArray<readonly [string, string | Buffer]> = [
  [".gitignore", "build/\nnode_modules\n*.log\n!keep.log\n/secret-root.txt\n"],
  [".ignore", "ignored-by-dot-ignore.txt\n"],
  ["src/app.ts", "import { util } from './util';\nexport const needle = 1;\n// second needle here\nconst haystack = 'needle';\n"],
  ["src/util.js", "function util() {\n  return 'Needle';\n}\n"],
  ["src/view.tsx", "export const View = () => <div>needle</div>;\n"],
  ["src/deep/nested/mod.ts", "line one\nneedle\nsecond needle\n\n\nneedle again 123\n"],
  ["src/deep/data.json", '{ "needle": true, "count": 456 }\n'],
  ["src/.env.example", "NEEDLE_TOKEN=example\n"],
  [".hidden/conf.yaml", "needle: yes\nother: no\n"],
  ["build/out.js", "needle in build output\n"],
  ["node_modules/pkg/index.js", "module.exports = 'needle';\n"],
  ["debug.log", "needle in a log\n"],
  ["keep.log", "needle kept log\n"],
  ["docs/readme.md", "# Readme\nThe needle\nis here.\n"],
  ["docs/guide.markdown", "guide without the word\n"],
  ["scripts/.gitignore", "generated.sh\n"],
  ["scripts/run.sh", "#!/bin/sh\necho needle\n"],
  ["scripts/generated.sh", "echo needle generated\n"],
  ["secret-root.txt", "needle at the root, ignored\n"],
  ["sub/secret-root.txt", "needle in sub, not ignored\n"],
  ["ignored-by-dot-ignore.txt", "needle ignored by .ignore\n"],
  ["bin.dat", Buffer.from("needle\0binary\nneedle\n")],
  ["long.txt", `short needle line\n${"x".repeat(600)} needle\n`],
  // ripgrep counts the newline in --max-columns: 499 bytes + newline fit, 500 do not, 500 without one do.
  ["columns.txt", `${"n".repeat(493)}needle\n${"n".repeat(494)}needle\n${"n".repeat(494)}needle`],
  ["unicode/héllo wörld.txt", "Grüße needle\nnaïve ÉCOLE\n"],
  ["name with spaces.py", "def needle():\n    pass\n"],
  ["crlf.txt", "first\r\nneedle\r\nlast\r\n"],
  ["multi.txt", "alpha\nneedle start\nsecond line\nomega\nbeta\ngamma\nneedle end\n"],
  [".git/HEAD", "ref: refs/heads/needle\n"],
  [".git/config", "[core]\n\tneedle = true\n"],
  [".git/info/exclude", "excluded-by-git.txt\n"],
  ["excluded-by-git.txt", "needle excluded by .git/info/exclude\n"],
];

export const corpusEpochSeconds = 1_700_000_000;

export async function writeSearchCorpus(root: string, outsideFile: string): Promise<void> {
  let index = 0;
  for (const [name, content] of corpusFiles) {
    const path = join(root, name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
    // Two files share a time, so the order's tie-break (by path) is exercised.
    const seconds = corpusEpochSeconds + (name === "docs/readme.md" ? index - 1 : index) * 60;
    await utimes(path, seconds, seconds);
    index += 1;
  }
  await symlink("src/app.ts", join(root, "link-in.ts"));
  await symlink(outsideFile, join(root, "link-out.txt"));
  await symlink(dirname(outsideFile), join(root, "link-out-dir"));
}
