import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createShellParser, type ShellParser, type ShellWasmLoader } from "../permissions/shell/shell-parser.ts";

const require = createRequire(import.meta.url);

/** Reads web-tree-sitter's runtime and tree-sitter-bash's grammar from node_modules; no download. */
export const nodeShellWasmLoader: ShellWasmLoader = {
  async loadRuntime() {
    return readFile(require.resolve("web-tree-sitter/tree-sitter.wasm"));
  },
  async loadLanguage() {
    return readFile(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
  },
};

export function createNodeShellParser(options: { cacheSize?: number } = {}): Promise<ShellParser> {
  return createShellParser(nodeShellWasmLoader, options);
}
