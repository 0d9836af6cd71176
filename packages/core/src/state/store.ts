export type Listener<T> = (state: T, previous: T) => void;

export type Store<T> = {
  getState(): T;
  /** Takes an updater, never a value: concurrent tools each see the latest state. */
  setState(update: (state: T) => T): void;
  subscribe(listener: Listener<T>): () => void;
};

/** An immutable-state store. Listeners run after each update that changed the state. */
export function createStore<T>(initialState: T): Store<T> {
  let state = initialState;
  const listeners = new Set<Listener<T>>();
  return {
    getState: () => state,
    setState(update) {
      const previous = state;
      const next = update(previous);
      if (Object.is(next, previous)) return;
      state = next;
      for (const listener of [...listeners]) listener(next, previous);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
