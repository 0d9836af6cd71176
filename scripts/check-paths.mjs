// Fails when a tracked file names a path outside this checkout, so a stranger's clone behaves like this one:
// - a relative path that climbs out of the repository from the file's folder (`../../../../shared/x`), or `../shared`;
// - an absolute path into this machine's user or project folders (/work, /home, /root, …, and the folder holding the
//   checkout) that exists here: only this machine has it. Paths into the checkout itself count too: another clone
//   lives elsewhere. Made-up paths used as data (`/work/demo`, `/home/user/x`) do not exist and pass.
// Usage: node scripts/check-paths.mjs   (exit code 1 and one line per finding when something is found)
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const userRoots = ["work", "home", "root", "Users", "mnt", "srv", "media", "opt"];
const maxFileBytes = 2_000_000;

/** Findings for one file's text: `{ line, path, reason }`. `exists` is injectable for tests. */
export function findOutsidePaths({ root, file, text, exists = existsSync }) {
  const findings = [];
  const roots = new Set([...userRoots, root.split(sep).filter(Boolean)[0]]);
  const folder = dirname(join(root, file));
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    const report = (path, reason) => findings.push({ line: index + 1, path, reason });
    for (const match of line.matchAll(/(?<![\w./-])\.\.\/shared(?![\w-])/g)) report(match[0], "names the shared folder beside the checkout");
    for (const match of line.matchAll(/(?<![\w.@/-])((?:\.\.\/)+)[\w.@-][^\s"'`()<>,;]*/g)) {
      const target = resolve(folder, match[0]);
      // A climb that lands in a system folder (`../../../../etc/passwd`) is an escape probe, not a reference.
      if (!isInside(root, target) && roots.has(target.split(sep).filter(Boolean)[0]) && match[0] !== "../shared")
        report(match[0], "climbs out of the repository");
    }
    for (const match of line.matchAll(/(?<![\w.:/~$@-])\/[\w.@-]+(?:\/[\w.@+-]+)+/g)) {
      const path = match[0];
      const segments = path.split("/").filter(Boolean);
      if (!roots.has(segments[0])) continue;
      if (isInside(root, path) || path === root) report(path, "absolute path into this checkout (use a path relative to the file)");
      else if (exists(`/${segments[0]}/${segments[1]}`)) report(path, "absolute path to a folder outside the repository");
    }
  }
  return findings;
}

function isInside(root, target) {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function trackedTextFiles(root) {
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    .split("\0")
    .filter(Boolean);
  return files.filter((file) => {
    // The lock file holds registry URLs; this checker and its test spell out the paths they look for.
    if (file === "package-lock.json" || file.startsWith("scripts/check-paths.")) return false;
    const path = join(root, file);
    if (!existsSync(path)) return false;
    const stats = statSync(path);
    return stats.isFile() && stats.size <= maxFileBytes;
  });
}

function main() {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  let count = 0;
  for (const file of trackedTextFiles(root)) {
    const buffer = readFileSync(join(root, file));
    if (buffer.includes(0)) continue;
    for (const finding of findOutsidePaths({ root, file, text: buffer.toString("utf8") })) {
      count += 1;
      console.error(`${file}:${finding.line}: ${finding.path} — ${finding.reason}`);
    }
  }
  if (count > 0) {
    console.error(`check-paths: ${count} path(s) outside the repository; copy what the code needs into the repository and load it relative to the file.`);
    process.exit(1);
  }
  console.log("check-paths: no tracked file names a path outside the repository");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
