import type { ShellParser } from "@cairn/core";
import { createNodeShellParser } from "@cairn/core/node";

/**
 * The Bash grammar (a wasm module and its JavaScript runtime) loads when a Bash command is first looked at, so a run
 * without Bash never pays for it; the first permission decision about a Bash command waits for it (`load`), and until
 * it is loaded `loaded()` is undefined, so no command counts as read-only (none runs concurrently).
 */
export function createLazyShellParser(): { load: () => Promise<ShellParser>; loaded: () => ShellParser | undefined } {
  let parser: ShellParser | undefined;
  let parserLoading: Promise<ShellParser> | undefined;
  const load = (): Promise<ShellParser> => {
    if (parserLoading) return parserLoading;
    parserLoading = createNodeShellParser();
    parserLoading.then(
      (ready) => {
        parser = ready;
      },
      () => undefined,
    );
    return parserLoading;
  };
  return { load, loaded: () => parser };
}
