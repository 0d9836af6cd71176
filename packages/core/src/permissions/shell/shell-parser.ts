import type { Parser } from "web-tree-sitter";
import { analyzeTree } from "./analyze-tree.ts";
import { readSyntaxTree } from "./syntax-tree.ts";
import type { ShellAnalysis } from "./types.ts";

/** Supplies the two wasm binaries; the Node loader reads them from node_modules, a browser would fetch them. */
export type ShellWasmLoader = {
  loadRuntime(): Promise<Uint8Array>;
  loadLanguage(): Promise<Uint8Array>;
};

/** A ready Bash parser. `analyze` is synchronous, so `isConcurrencySafe` can use it. */
export type ShellParser = {
  analyze(command: string): ShellAnalysis;
  dispose(): void;
};

export class ShellParserError extends Error {
  readonly code = "shell_parser_unavailable";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ShellParserError";
  }
}

/** Longer commands are not parsed: they ask, and the decision stays fast. */
export const MAX_ANALYSED_COMMAND_LENGTH = 10_000;

// Characters bash treats as ordinary but a reader (or tree-sitter) might take as separators or hide.
const suspiciousCharacters = /[\x00-\x08\x0b-\x1f\x7f\u00a0\u1680\u2000-\u200f\u2028\u2029\u202a-\u202e\u205f\u2060\u3000\ufeff]/;

/** The chain of grammar loads in this module instance (see createShellParser). */
let grammarLoads: Promise<void> = Promise.resolve();

async function loadGrammar(loader: ShellWasmLoader): Promise<Parser> {
  // web-tree-sitter's JavaScript (150 KB) is imported here, not at module load: only a run that judges a Bash command needs it.
  const [{ Language, Parser }, runtime, language] = await Promise.all([import("web-tree-sitter"), loader.loadRuntime(), loader.loadLanguage()]);
  // Parser.init is idempotent per module instance; the binary is passed in, so nothing is fetched.
  await Parser.init({ wasmBinary: runtime });
  const bash = await Language.load(language);
  const parser = new Parser();
  parser.setLanguage(bash);
  return parser;
}

export async function createShellParser(loader: ShellWasmLoader, options: { cacheSize?: number } = {}): Promise<ShellParser> {
  let parser: Parser;
  try {
    // One at a time: web-tree-sitter keeps one wasm instance per module, and two runtimes loading the
    // grammar at once (two sessions' first Bash commands) corrupted it ("null function or function
    // signature mismatch").
    const loading = grammarLoads.then(() => loadGrammar(loader));
    grammarLoads = loading.then(
      () => undefined,
      () => undefined,
    );
    parser = await loading;
  } catch (error) {
    throw new ShellParserError(`could not load the Bash grammar: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const cacheSize = options.cacheSize ?? 256;
  const cache = new Map<string, ShellAnalysis>();
  let disposed = false;

  const analyseUncached = (command: string): ShellAnalysis => {
    if (command.length > MAX_ANALYSED_COMMAND_LENGTH) {
      return { command, commands: [], redirects: [], problems: ["the command is too long to analyse"] };
    }
    const problems = suspiciousCharacters.test(command) ? ["the command contains control or invisible characters"] : [];
    if (command.trim() === "") return { command, commands: [], redirects: [], problems: ["the command is empty"] };
    const tree = parser.parse(command);
    if (!tree) return { command, commands: [], redirects: [], problems: ["the command could not be parsed"] };
    try {
      const analysis = analyzeTree(readSyntaxTree(tree, command), command);
      return problems.length ? { ...analysis, problems: [...problems, ...analysis.problems] } : analysis;
    } finally {
      tree.delete();
    }
  };

  return {
    analyze(command) {
      if (disposed) throw new ShellParserError("the shell parser was disposed");
      const cached = cache.get(command);
      if (cached) {
        cache.delete(command);
        cache.set(command, cached);
        return cached;
      }
      const analysis = analyseUncached(command);
      cache.set(command, analysis);
      if (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
      return analysis;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      cache.clear();
      parser.delete();
    },
  };
}
