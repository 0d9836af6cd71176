import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createNodeShellParser } from "../../node/shell-parser.ts";
import type { ShellParser } from "./shell-parser.ts";

let parser: ShellParser;
beforeAll(async () => {
  parser = await createNodeShellParser();
});
afterAll(() => parser.dispose());

const argvs = (command: string) => parser.analyze(command).commands.map((simple) => simple.argv.map((word) => word.value));

describe("simple commands after quote removal", () => {
  test.each<[string, string[][]]>([
    ["ls -la", [["ls", "-la"]]],
    [`ls "a b" 'c d' e\\ f`, [["ls", "a b", "c d", "e f"]]],
    [`echo "a\\"b" 'x\\y' "\\$HOME"`, [["echo", 'a"b', "x\\y", "$HOME"]]],
    [`echo $'a\\tb' "x"'y'z`, [["echo", "a\tb", "xyz"]]],
    [
      "git status && npm test",
      [
        ["git", "status"],
        ["npm", "test"],
      ],
    ],
    ["a; b & c || d | e |& f", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]],
    ["ls \\\n  -la", [["ls", "-la"]]],
    ["(cd src; ls)", [["cd", "src"], ["ls"]]],
    ["! grep -q x f", [["grep", "-q", "x", "f"]]],
    ["ls # a comment; rm x", [["ls"]]],
    ['"ls" -la', [["ls", "-la"]]],
    ["find . -name x -exec rm {} \\;", [["find", ".", "-name", "x", "-exec", "rm", "{}", ";"]]],
    [
      "echo \"héllo 😀\" 'ü' && ls -ß",
      [
        ["echo", "héllo 😀", "ü"],
        ["ls", "-ß"],
      ],
    ],
  ])("%j", (command, expected) => {
    const analysis = parser.analyze(command);
    expect(analysis.problems).toEqual([]);
    expect(argvs(command)).toEqual(expected);
  });

  test("expansions and globs are marked as not literal", () => {
    const [command] = parser.analyze('ls $HOME "$X" ~/a *.ts {a,b} plain "q"').commands;
    expect(command!.argv.map((word) => word.literal)).toEqual([true, false, false, false, false, false, true, true]);
  });

  test("prefix assignments are kept apart from argv", () => {
    const [command] = parser.analyze("NODE_ENV=test FOO=$BAR npm test").commands;
    expect(command!.argv.map((word) => word.value)).toEqual(["npm", "test"]);
    expect(command!.assignments.map((assignment) => [assignment.name, assignment.value.literal])).toEqual([
      ["NODE_ENV", true],
      ["FOO", false],
    ]);
  });

  test("redirections are classified", () => {
    const { redirects, problems } = parser.analyze("cmd < in > out 2>&1 >> log &> all 3>&-");
    expect(problems).toEqual([]);
    expect(redirects.map((redirect) => [redirect.operator, redirect.kind, redirect.target?.value])).toEqual([
      ["<", "read", "in"],
      [">", "write", "out"],
      [">&", "duplicate", "1"],
      [">>", "write", "log"],
      ["&>", "write", "all"],
      [">&-", "close", undefined],
    ]);
    expect(parser.analyze("cmd <<< word").redirects).toEqual([{ operator: "<<<", kind: "herestring" }]);
  });

  test("words after a redirection target are arguments of the command, as bash reads them", () => {
    const argvOf = (command: string) => parser.analyze(command).commands.map((simple) => simple.argv.map((word) => word.value));
    expect(argvOf("ls > ../out -la")).toEqual([["ls", "-la"]]);
    expect(argvOf("ls 2>x -la")).toEqual([["ls", "-la"]]);
    expect(argvOf("git > /dev/null push --force")).toEqual([["git", "push", "--force"]]);
    expect(argvOf("ls > a b > c d")).toEqual([["ls", "b", "d"]]);
    expect(parser.analyze("ls > ../out -la").redirects.map((redirect) => redirect.target?.value)).toEqual(["../out"]);
    expect(parser.analyze("{ ls; } > x y").problems).toContain("words after a redirection target");
  });

  test("redirections inside functions and loops are recorded", () => {
    expect(parser.analyze("f() { ls > inner; }; f").redirects.map((redirect) => redirect.target?.value)).toEqual(["inner"]);
    expect(parser.analyze("for i in 1; do ls >> loop; done").redirects.map((redirect) => redirect.target?.value)).toEqual(["loop"]);
  });
});

describe("what cannot be allowed by a rule", () => {
  test.each<[string, string]>([
    ["ls $(rm x)", "command substitution"],
    ["ls `rm x`", "command substitution"],
    ['ls "$(rm x)"', "command substitution"],
    ["ls <(rm x)", "process substitution"],
    ["ls > >(rm x)", "process substitution"],
    ["echo $((1 + 2))", "arithmetic expansion"],
    ["$CMD x", "an expansion in command position"],
    ["if true; then rm x; fi", "an if statement"],
    ["for f in *; do rm $f; done", "a loop"],
    ["f() { rm x; }; f", "a function definition"],
    ["export PATH=/tmp", "a declaration"],
    ["PATH=/tmp/evil", "a variable assignment"],
    ["[[ -f x ]] && ls", "a test expression"],
    ["ls ((", "syntax error"],
    ["ls <> f", "syntax error"],
    ["ls\r\nrm x", "control or invisible characters"],
    ["ls\u00a0-la", "control or invisible characters"],
    ["cat <<EOF\n$(rm x)\nEOF", "command substitution"],
    ["", "empty"],
  ])("%j → %s", (command, expected) => {
    expect(parser.analyze(command).problems.join(" | ")).toContain(expected);
  });

  test("commands hidden in substitutions are still listed, marked nested", () => {
    const analysis = parser.analyze("ls $(rm -rf x) `curl evil`");
    expect(analysis.commands.filter((command) => command.nested).map((command) => command.argv[0]!.value)).toEqual(["rm", "curl"]);
  });

  test("commands after a heredoc operator are listed", () => {
    expect(argvs("cat <<EOF | sh\nrm x\nEOF")).toEqual([["cat"], ["sh"]]);
    expect(argvs("cat <<EOF && rm x\nhi\nEOF")).toEqual([["cat"], ["rm", "x"]]);
  });

  test("very long commands are not parsed", () => {
    expect(parser.analyze(`echo ${"a".repeat(20_000)}`).problems).toEqual(["the command is too long to analyse"]);
  });

  test("results are cached per command text", () => {
    expect(parser.analyze("git log --oneline")).toBe(parser.analyze("git log --oneline"));
  });
});
