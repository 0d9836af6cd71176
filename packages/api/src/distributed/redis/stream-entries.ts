import type { SessionEvent } from "../../router/types.ts";

/** The seq of a stream entry id `<seq>-0`. */
export function seqOf(entryId: string): number {
  return Number.parseInt(entryId.slice(0, entryId.indexOf("-")), 10);
}

/** The event in an entry's fields (`e` → JSON), or undefined when it is missing or unreadable. */
export function eventOf(fields: readonly string[]): SessionEvent | undefined {
  for (let index = 0; index + 1 < fields.length; index += 2) {
    if (fields[index] !== "e") continue;
    try {
      return JSON.parse(fields[index + 1] ?? "") as SessionEvent;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
