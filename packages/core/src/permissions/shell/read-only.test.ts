import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createNodeShellParser } from "../../node/shell-parser.ts";
import { isReadOnlyBashCommand } from "./read-only.ts";
import type { ShellParser } from "./shell-parser.ts";

let parser: ShellParser;
beforeAll(async () => {
  parser = await createNodeShellParser();
});
afterAll(() => parser.dispose());

describe("isReadOnlyBashCommand", () => {
  test.each([
    "ls -la",
    "cat package.json | head -20",
    "grep -rn 'TODO' src | wc -l",
    "rg --files -g '*.ts'",
    "find . -name '*.ts' -type f",
    "pwd",
    "echo hello > /dev/null",
    "git status",
    "git diff --stat HEAD~1",
    "git log --oneline -10",
    "git show HEAD:README.md",
    "git branch -a",
    "git branch --show-current",
    "ls 2>&1 | sort | uniq -c",
    "tail -n 50 log.txt && wc -c log.txt",
    "timeout 5 cat a.txt",
    "LANG=C sort names.txt",
    "jq .name package.json",
    "date +%s",
    "sort -k2 file",
  ])("%j is read-only", (command) => {
    expect(isReadOnlyBashCommand(parser, command)).toBe(true);
  });

  test.each([
    "ls > files.txt",
    "echo hi >> notes.md",
    "cat a | tee b",
    "rm -rf build",
    "touch x",
    "git commit -m x",
    "git branch new-feature",
    "git branch -D old",
    "git diff --output=patch.diff",
    "git -c core.pager=evil log",
    "git tag v1",
    "find . -delete",
    "find . -name x -exec cat {} \\;",
    "find . -name *.ts",
    "sort -o out.txt in.txt",
    "sort -uo out.txt in.txt",
    "uniq in.txt out.txt",
    "rg --pre ./evil x",
    "date -s 2020-01-01",
    "hostname newname",
    "env rm x",
    "printf -v X hi",
    "ls $(pwd)",
    "cat <(ls)",
    "PAGER=evil git log",
    "/tmp/ls",
    "./cat file",
    "ls; npm install",
    "sed -n 1p file",
    "xargs cat",
    "tree -o out.txt",
    "constructor",
    "toString",
    "",
  ])("%j is not read-only", (command) => {
    expect(isReadOnlyBashCommand(parser, command)).toBe(false);
  });
});
