// Bundles the CLI, the workspace packages it uses (TypeScript sources) and its pure-JavaScript npm
// dependencies into one CommonJS file, so `cairn` starts without compiling TypeScript or resolving and reading
// a hundred small files at run time. Native addons, packages that find files next to themselves
// (binaries, wasm) and Next.js stay external. CommonJS because Node 20 can only hand V8 a code cache for
// a script, not for an ES module: bin/load-bundle.js compiles it with the cache the last start left.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { tsImport } from "tsx/esm/api";

const here = dirname(fileURLToPath(import.meta.url));
const { BUNDLE_HEAD, BUNDLE_TAIL } = createRequire(import.meta.url)("./bin/load-bundle.js");

/** Loaded from node_modules at run time: native addons, packages that locate files beside themselves, Next.js. */
const KEEP_EXTERNAL =
  /^(node-pty|better-sqlite3|@anthropic-ai\/sandbox-runtime|web-tree-sitter|tree-sitter-bash|next|react|react-dom|typescript|esbuild|tsx|ioredis|postgres|pino)(\/|$)/;

/**
 * Bundles `@cairn/*` and pure-JavaScript packages; keeps the rest external. A deep import into a package
 * without an `exports` map (`picomatch/posix`) only resolves through bundler-style lookup, so it is
 * pointed at the file itself.
 */
const externals = {
  name: "externals",
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("@cairn/")) return undefined;
      if (args.path.startsWith("node:")) return { path: args.path, external: true };
      if (!KEEP_EXTERNAL.test(args.path)) return undefined;
      const parts = args.path.split("/");
      const packageName = args.path.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
      if (packageName === args.path) return { path: args.path, external: true };
      const require = createRequire(args.importer || join(here, "package.json"));
      const manifestPath = (require.resolve.paths(packageName) ?? []).map((dir) => join(dir, packageName, "package.json")).find((file) => existsSync(file));
      if (!manifestPath || JSON.parse(readFileSync(manifestPath, "utf8")).exports) return { path: args.path, external: true };
      return { path: require.resolve(args.path), external: true };
    });
  },
};

/**
 * OpenTelemetry's packages (initialised only with telemetry on) have no `exports` map, so esbuild would take
 * their CommonJS `main`, whose dynamic `import()` exposes only `default`. Their `module` field points at the
 * ES module build, which keeps the named exports.
 */
const openTelemetryEsm = {
  name: "opentelemetry-esm",
  setup(builder) {
    builder.onResolve({ filter: /^@opentelemetry\/[a-z-]+$/ }, (args) => {
      const require = createRequire(args.importer || join(here, "package.json"));
      const manifestPath = (require.resolve.paths(args.path) ?? []).map((dir) => join(dir, args.path, "package.json")).find((file) => existsSync(file));
      if (!manifestPath) return undefined;
      const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
      if (manifest.exports || typeof manifest.module !== "string") return undefined;
      return { path: join(dirname(manifestPath), manifest.module) };
    });
  },
};

/** Each source keeps its own `import.meta.url`, so files it finds relative to itself are still found. */
const ownUrl = {
  name: "own-import-meta-url",
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      return { contents: source.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)), loader: "ts" };
    });
  },
};

/**
 * zod's `z` and `z.core` namespaces carry every locale (`z.locales.*`, some 40 modules), so a bundle cannot drop
 * them; Cairn uses only the default English messages, which zod configures itself. The other locales
 * would be a third of what `cairn -p` reads and compiles at start.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]v4[\\/](classic[\\/]external|core[\\/]index)\.js$/.test(args.importer)) return undefined;
      return { path: join(args.resolveDir, "..", "locales", "index.js"), namespace: "zod-english-only" };
    });
    builder.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), "en.js"))};`,
      resolveDir: dirname(args.path),
      loader: "js",
    }));
  },
};

/**
 * The Anthropic SDK's modules get `Headers` and `FormData` from src/sdk-globals.ts instead of Node's globals, whose
 * first touch loads all of undici (see that file). On the first line, so the SDK's source maps stay right below it.
 */
const sdkGlobals = {
  name: "sdk-globals",
  setup(builder) {
    const shim = JSON.stringify(join(here, "src", "sdk-globals.ts"));
    builder.onLoad({ filter: /[\\/]node_modules[\\/]@anthropic-ai[\\/]sdk[\\/].*\.m?js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!/\b(Headers|FormData)\b/.test(source)) return undefined;
      return { contents: `import { Headers, FormData } from ${shim};${source}`, loader: "js", resolveDir: dirname(args.path) };
    });
  },
};

/**
 * The built-in tools' input JSON Schemas, derived from the sources being bundled (core's `namedInputJsonSchemas`: every
 * schema made by `toolInputSchema` in the modules core's index loads). The bundle carries them in place of core's empty
 * precomputed-input-json-schemas.ts, so a start sends them without building the tools' zod schemas and converting them.
 */
async function builtinInputJsonSchemas() {
  const core = join(here, "..", "core", "src");
  // One module imports both, so they share one module graph (each tsImport call loads its own).
  const probe = join(here, "dist", "input-json-schemas.probe.ts");
  mkdirSync(dirname(probe), { recursive: true });
  writeFileSync(
    probe,
    `import ${JSON.stringify(join(core, "index.ts"))};\nexport { namedInputJsonSchemas } from ${JSON.stringify(join(core, "tools", "input-schema.ts"))};\n`,
  );
  try {
    const { namedInputJsonSchemas } = await tsImport(pathToFileURL(probe).href, import.meta.url);
    return namedInputJsonSchemas();
  } finally {
    rmSync(probe, { force: true });
  }
}

const precomputedInputJsonSchemas = (schemas) => ({
  name: "precomputed-input-json-schemas",
  setup(builder) {
    builder.onLoad({ filter: /[\\/]core[\\/]src[\\/]tools[\\/]precomputed-input-json-schemas\.ts$/ }, () => ({
      contents: `export const precomputedInputJsonSchemas = ${JSON.stringify(schemas)};`,
      loader: "js",
    }));
  },
});

// A fresh build drops the old bundle's code caches with it.
rmSync(join(here, "dist"), { recursive: true, force: true });
const inputJsonSchemas = await builtinInputJsonSchemas();

const result = await build({
  // The CLI; the local workspace worker on its own (a worker child loads the worker's code alone); the timeline worker
  // thread's code, which @cairn/api's TimelineWorkerClient finds beside the bundle.
  entryPoints: {
    cairn: join(here, "src", "main.ts"),
    worker: join(here, "src", "worker-entry.ts"),
    "timeline-worker": join(here, "..", "api", "src", "timeline", "timeline-worker-main.ts"),
  },
  outdir: join(here, "dist"),
  outExtension: { ".js": ".cjs" },
  bundle: true,
  platform: "node",
  // Sub-commands' modules (and their npm dependencies) are still initialised only when they run; with the code
  // cache, what a command never runs costs little more than reading it.
  format: "cjs",
  // No `import()` in the bundle: V8 loses a script's dynamic-import host options when it comes from a code cache
  // ("A dynamic import callback was not specified"). External packages load through `require` instead, ES-module-only
  // ones included (require(esm), Node >= 20.19 as package.json's engines say).
  supported: { "dynamic-import": false },
  target: "node20",
  sourcemap: "linked",
  // Less to read and compile at every start. Names are not kept: esbuild keeps them with a defineProperty call per
  // function and class as its module initialises (4,700 in a `cairn -p` run, each giving the function a map of its
  // own: 9% of the instructions before the first request). Cairn's errors name themselves (`this.name = "..."`); stack
  // traces of the bundle show minified names (CAIRN_DEV=1 runs the sources).
  minify: true,
  plugins: [openTelemetryEsm, externals, precomputedInputJsonSchemas(inputJsonSchemas), ownUrl, zodEnglishOnly, sdkGlobals],
  logLevel: "warning",
  // bin/load-bundle.js wraps the bundle in a function on this first line, so every line of code keeps its number.
  banner: { js: "// Cairn bundle (built by packages/cli/build.mjs)" },
  metafile: true,
});
// esbuild escapes non-ASCII characters in strings, not in regular expression literals. One such character makes V8
// hold the whole bundle as a two-byte string (twice the memory, slower to read and scan at every start).
// The bundles bin/load-bundle.js loads are then put inside CommonJS's module wrapper here, so a start compiles the file
// as it reads it instead of building a second 1.7 MB string around it. The wrapper opens on the banner's line (before
// its comment), so every line of code keeps its number in the source map.
for (const bundle of ["cairn.cjs", "worker.cjs"]) {
  const bundleBytes = readFileSync(join(here, "dist", bundle));
  const nonAscii = bundleBytes.findIndex((byte) => byte > 0x7f);
  if (nonAscii !== -1) {
    const around = bundleBytes.subarray(Math.max(0, nonAscii - 80), nonAscii + 20).toString("utf8");
    throw new Error(`the ${bundle} bundle must be ASCII (write \\u escapes in regular expressions); non-ASCII at byte ${nonAscii}: ${around}`);
  }
  writeFileSync(join(here, "dist", bundle), Buffer.concat([Buffer.from(BUNDLE_HEAD), bundleBytes, Buffer.from(BUNDLE_TAIL)]));
}
if (process.env.CAIRN_METAFILE) writeFileSync(process.env.CAIRN_METAFILE, JSON.stringify(result.metafile));
