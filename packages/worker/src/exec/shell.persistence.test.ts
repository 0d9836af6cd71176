import type { OutputChunk, Workspace } from "@cairn/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execOptions, makeFixture, openWorkspace, type Fixture } from "../testing/fixture.ts";

let fixture: Fixture;
let workspace: Workspace;

beforeEach(async () => {
  fixture = await makeFixture();
  workspace = await openWorkspace(fixture);
});

afterEach(async () => {
  await workspace.dispose();
  await fixture.cleanup();
});

describe("exec in a persistent sandboxed shell", () => {
  it("starts in the root and keeps cwd and exported variables between commands of one shell", async () => {
    const first = await workspace.exec("pwd", execOptions());
    expect(first).toMatchObject({ exitCode: 0, stdout: `${fixture.root}\n`, cwd: fixture.root, sandboxed: true });
    const moved = await workspace.exec("mkdir -p src/lib && cd src/lib && export GREETING=hello && LOCAL=not-exported", execOptions());
    expect(moved.cwd).toBe(`${fixture.root}/src/lib`);
    const after = await workspace.exec('pwd; echo "$GREETING $LOCAL"', execOptions());
    expect(after.stdout).toBe(`${fixture.root}/src/lib\nhello not-exported\n`);
  });

  it("keeps shells apart by shellId", async () => {
    await workspace.exec("mkdir -p a && cd a && export ONLY_HERE=1", execOptions({ shellId: "one" }));
    const other = await workspace.exec('pwd; echo "[$ONLY_HERE]"', execOptions({ shellId: "two" }));
    expect(other.stdout).toBe(`${fixture.root}\n[]\n`);
  });

  it("captures stdout and stderr separately, streams them, and reports exit codes", async () => {
    const chunks: OutputChunk[] = [];
    const result = await workspace.exec("echo out; echo err >&2; printf tail; exit 3", { ...execOptions(), onOutput: (chunk) => chunks.push(chunk) });
    expect(result).toMatchObject({ exitCode: 3, stdout: "out\ntail", stderr: "err\n", timedOut: false, interrupted: false });
    expect(
      chunks
        .filter((chunk) => chunk.stream === "stdout")
        .map((chunk) => chunk.data)
        .join(""),
    ).toBe("out\ntail");
    expect(
      chunks
        .filter((chunk) => chunk.stream === "stderr")
        .map((chunk) => chunk.data)
        .join(""),
    ).toBe("err\n");
    // `exit` ended that shell; the next command gets a new one, in the same directory.
    expect(await workspace.exec("false", execOptions())).toMatchObject({ exitCode: 1 });
    expect(await workspace.exec("true", execOptions())).toMatchObject({ exitCode: 0, cwd: fixture.root });
  });

  it("reports syntax errors as a failed command without breaking the shell", async () => {
    const broken = await workspace.exec("if then fi (", execOptions());
    expect(broken.exitCode).not.toBe(0);
    expect(broken.stderr).toMatch(/syntax error/);
    expect((await workspace.exec("echo still here", execOptions())).stdout).toBe("still here\n");
  });

  it("does not let a command read the shell's own input", async () => {
    const result = await workspace.exec("cat; echo done", execOptions());
    expect(result.stdout).toBe("done\n");
    expect((await workspace.exec("echo next", execOptions())).stdout).toBe("next\n");
  });

  it("caps output at maxOutputChars and says so", async () => {
    const result = await workspace.exec("head -c 5000 /dev/zero | tr '\\0' a; echo; echo small >&2", execOptions({ maxOutputChars: 1000 }));
    expect(result.stdout).toBe("a".repeat(1000));
    expect(result.stderr).toBe("small\n");
    expect(result.truncated).toBe(true);
    const defaults = await workspace.exec("head -c 40000 /dev/zero | tr '\\0' b", execOptions());
    expect(defaults.stdout.length).toBe(30_000);
  });

  it("moves the shell back to the root when a command leaves the workspace", async () => {
    const result = await workspace.exec("cd / && pwd", execOptions());
    expect(result.stdout).toBe("/\n");
    expect(result.cwd).toBe(fixture.root);
    expect(result.stderr).toContain(`Shell cwd was reset to ${fixture.root}`);
    expect((await workspace.exec("pwd", execOptions())).stdout).toBe(`${fixture.root}\n`);
  });

  it("gives the shell a private HOME and TMPDIR that it can write", async () => {
    const result = await workspace.exec('echo "$HOME|$TMPDIR"; touch "$HOME/h" "$TMPDIR/t" && echo wrote', execOptions());
    const [home, temporary] = result.stdout.split("\n")[0]?.split("|") ?? [];
    expect(home).toMatch(/cairn-ws-.*\/home$/);
    expect(temporary).toMatch(/cairn-ws-.*\/tmp$/);
    expect(result.stdout).toContain("wrote");
  });
});
