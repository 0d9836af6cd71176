import type { AppState, Store } from "@cairn/core";
import type { PermissionBroker } from "./permission-broker.ts";
import type { CarriedState } from "./session-ownership.ts";

/** What the carried state is read from: a live session (the run flag is optional, for a session that has no runs to report). */
type CarriedSource = { store: Store<AppState>; broker: PermissionBroker; readonly running?: boolean; onRunningChange?(listener: () => void): void };

/**
 * Keeps what a node taking the session over needs with the session's lease, as it changes: the
 * permission mode and model (from the session's store), the permission questions waiting for an
 * answer (from its broker) and whether a run is going (which other nodes' session lists show).
 * Writes go one at a time, each only when the state differs from the last written; a failed write is
 * tried again at the next change.
 */
export function carrySessionState(session: CarriedSource, save: (state: CarriedState) => Promise<void>): void {
  let written: string | undefined;
  let writes: Promise<void> = Promise.resolve();
  const sync = (): void => {
    const app = session.store.getState();
    const state: CarriedState = {
      permissionMode: app.permissionMode,
      model: app.model,
      waitingQuestions: session.broker.pending(),
      ...(session.running !== undefined ? { running: session.running } : {}),
    };
    const key = JSON.stringify(state);
    if (key === written) return;
    written = key;
    writes = writes
      .then(() => save(state))
      .catch(() => {
        if (written === key) written = undefined;
      });
  };
  session.store.subscribe(sync);
  session.broker.onChange(sync);
  session.onRunningChange?.(sync);
  sync();
}
