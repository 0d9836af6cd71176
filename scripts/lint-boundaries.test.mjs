// The import boundaries in biome.jsonc hold: probe files are written where they would live, linted in one Biome run,
// and removed.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const biome = join(root, "node_modules", ".bin", "biome");
const nodeImport = 'import { readFile } from "node:fs/promises";\nexport const probe = readFile;\n';
const probes = {
  coreNode: ["packages/core/src/tools", nodeImport],
  coreNodeFolder: ["packages/core/src/node", nodeImport],
  coreWorker: ["packages/core/src/node", 'import { createLocalWorkspace } from "@cairn/worker";\nexport const probe = createLocalWorkspace;\n'],
  workerApi: ["packages/worker/src", 'import { startServer } from "@cairn/api";\nexport const probe = startServer;\n'],
  workerCore: ["packages/worker/src", 'import { query } from "@cairn/core";\nexport const probe = query;\n'],
  apiCli: ["packages/api/src", 'import { main } from "@cairn/cli";\nexport const probe = main;\n'],
  webRouterType: ["apps/web/src/chat", 'import type { AppRouter } from "@cairn/api/router";\nexport type Probe = AppRouter;\n'],
  webCoreRoot: ["apps/web/src/chat", 'import { query } from "@cairn/core";\nexport const probe = query;\n'],
  webApi: ["apps/web/src/chat", 'import { startServer } from "@cairn/api";\nexport const probe = startServer;\n'],
  webNode: ["apps/web/src/chat", nodeImport],
};
const paths = new Map();
const rules = new Map();

before(() => {
  const suffix = randomBytes(4).toString("hex");
  for (const [name, [folder, source]] of Object.entries(probes)) {
    const path = join(root, folder, `zz-boundary-probe-${name}-${suffix}.ts`);
    writeFileSync(path, source);
    paths.set(name, path);
    rules.set(name, []);
  }
  let output = "";
  try {
    output = execFileSync(biome, ["lint", "--reporter=github", "--max-diagnostics=none", ...paths.values()], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    output = String(error.stdout ?? "");
  }
  for (const match of output.matchAll(/title=lint\/\w+\/(\w+),file=([^,]+),/g)) {
    const name = [...paths].find(([, path]) => path === match[2])?.[0];
    if (name) rules.get(name).push(match[1]);
  }
});

after(() => {
  for (const path of paths.values()) rmSync(path, { force: true });
});

describe("import boundaries", () => {
  it("core: no Node built-ins outside src/node, no other Cairn package", () => {
    assert.deepEqual(rules.get("coreNode"), ["noNodejsModules"]);
    assert.deepEqual(rules.get("coreNodeFolder"), []);
    assert.deepEqual(rules.get("coreWorker"), ["noRestrictedImports"]);
  });

  it("no layer imports a layer above it: web → api → worker → core", () => {
    assert.deepEqual(rules.get("workerApi"), ["noRestrictedImports"]);
    assert.deepEqual(rules.get("workerCore"), []);
    assert.deepEqual(rules.get("apiCli"), ["noRestrictedImports"]);
  });

  it("browser code: only @cairn/core/schema, @cairn/core/timeline and the routers' types, no Node built-ins", () => {
    assert.deepEqual(rules.get("webRouterType"), []);
    assert.deepEqual(rules.get("webCoreRoot"), ["noRestrictedImports"]);
    assert.deepEqual(rules.get("webApi"), ["noRestrictedImports"]);
    assert.deepEqual(rules.get("webNode"), ["noNodejsModules"]);
  });
});
