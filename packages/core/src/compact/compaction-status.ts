import type { AppState } from "../state/app-state.ts";

/** The circuit breaker's state: auto-compaction failures in a row, and whether it is paused. */
export type CompactionStatus = { consecutiveFailures: number; breakerTripped: boolean };

export type CompactionStatusStore = {
  get(): CompactionStatus;
  set(update: (status: CompactionStatus) => CompactionStatus): void;
};

/** Keeps the breaker in the app state (`compaction`), where the UI and other sessions' views can see it. */
export function appStateStatusStore(getAppState: () => AppState, setAppState: (update: (state: AppState) => AppState) => void): CompactionStatusStore {
  return {
    get: () => ({ ...getAppState().compaction }),
    set(update) {
      setAppState((state) => {
        const next = update({ ...state.compaction });
        const current = state.compaction;
        if (next.consecutiveFailures === current.consecutiveFailures && next.breakerTripped === current.breakerTripped) return state;
        return { ...state, compaction: next };
      });
    },
  };
}

/** For a compactor without app state (tests, one-off CLI runs). */
export function localStatusStore(): CompactionStatusStore {
  let status: CompactionStatus = { consecutiveFailures: 0, breakerTripped: false };
  return {
    get: () => ({ ...status }),
    set(update) {
      status = update({ ...status });
    },
  };
}
