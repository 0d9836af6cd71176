import type { SessionEvent } from "../../router/types.ts";

/** The seq of a stream entry id `<seq>-0`. */
export function seqOf(entryId: string): number {
  return Number.parseInt(entryId.slice(0, entryId.indexOf("-")), 10);
}

/** The event's JSON in an entry's fields (`e` → JSON), or undefined when it is missing. */
export function payloadOf(fields: readonly string[]): string | undefined {
  for (let index = 0; index + 1 < fields.length; index += 2) if (fields[index] === "e") return fields[index + 1];
  return undefined;
}

/** The event in an entry's fields (`e` → JSON), or undefined when it is missing or unreadable. */
export function eventOf(fields: readonly string[]): SessionEvent | undefined {
  const payload = payloadOf(fields);
  return payload === undefined ? undefined : parsedEvent(payload);
}

/** The event a payload holds, or undefined when it is not JSON. */
export function parsedEvent(payload: string): SessionEvent | undefined {
  try {
    return JSON.parse(payload) as SessionEvent;
  } catch {
    return undefined;
  }
}
