import { describe, expect, it } from "vitest";
import { createInitialAppState } from "./app-state.ts";
import { createStore } from "./store.ts";

describe("createStore", () => {
  it("applies updaters in order and notifies listeners with the new and previous state", () => {
    const store = createStore(createInitialAppState({ model: "m" }));
    const seen: string[] = [];
    store.subscribe((state, previous) => seen.push(`${previous.permissionMode}->${state.permissionMode}`));
    store.setState((state) => ({ ...state, permissionMode: "plan" }));
    store.setState((state) => ({ ...state, permissionMode: "acceptEdits" }));
    expect(seen).toEqual(["default->plan", "plan->acceptEdits"]);
    expect(store.getState().permissionMode).toBe("acceptEdits");
  });

  it("does not notify when the updater returns the same state", () => {
    const store = createStore({ count: 0 });
    let calls = 0;
    store.subscribe(() => calls++);
    store.setState((state) => state);
    expect(calls).toBe(0);
  });

  it("stops notifying after unsubscribe, even when unsubscribing during a notification", () => {
    const store = createStore({ count: 0 });
    const calls: string[] = [];
    const offA = store.subscribe(() => {
      calls.push("a");
      offA();
    });
    store.subscribe(() => calls.push("b"));
    store.setState((state) => ({ count: state.count + 1 }));
    store.setState((state) => ({ count: state.count + 1 }));
    expect(calls).toEqual(["a", "b", "b"]);
  });
});
