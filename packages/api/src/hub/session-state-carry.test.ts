import { createInitialAppState, createStore, type PermissionRequest } from "@cairn/core";
import { describe, expect, it, vi } from "vitest";
import { PermissionBroker } from "./permission-broker.ts";
import type { CarriedState } from "./session-ownership.ts";
import { carrySessionState } from "./session-state-carry.ts";

const question: PermissionRequest = {
  requestId: "r1",
  toolUseId: "t1",
  toolName: "Write",
  input: { file_path: "/w/a.txt", content: "x" },
  reason: { type: "default", reason: "edits ask" },
  suggestions: [],
};

describe("carrySessionState", () => {
  it("writes the mode, model and waiting questions when they change, once per change, in order", async () => {
    const store = createStore(createInitialAppState({ model: "model-a", permissionMode: "default" }));
    const broker = new PermissionBroker();
    const saved: CarriedState[] = [];
    carrySessionState({ store, broker }, async (state) => void saved.push(state));
    store.setState((state) => ({ ...state, permissionMode: "acceptEdits" }));
    // A change to something not carried writes nothing.
    store.setState((state) => ({ ...state, todos: [{ content: "a", status: "pending", activeForm: "doing a" }] }));
    broker.announce(question);
    store.setState((state) => ({ ...state, model: "model-b" }));
    broker.settle("r1");
    await vi.waitFor(() => expect(saved).toHaveLength(5));
    expect(saved.map((state) => [state.permissionMode, state.model, state.waitingQuestions.map((waiting) => waiting.requestId)])).toEqual([
      ["default", "model-a", []],
      ["acceptEdits", "model-a", []],
      ["acceptEdits", "model-a", ["r1"]],
      ["acceptEdits", "model-b", ["r1"]],
      ["acceptEdits", "model-b", []],
    ]);
  });

  it("writes a state again at the next change after a failed write", async () => {
    const store = createStore(createInitialAppState({ model: "model-a", permissionMode: "default" }));
    const broker = new PermissionBroker();
    const saved: string[] = [];
    let failing = true;
    carrySessionState({ store, broker }, async (state) => {
      if (failing) throw new Error("database away");
      saved.push(state.permissionMode);
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    failing = false;
    store.setState((state) => ({ ...state, permissionMode: "plan" }));
    store.setState((state) => ({ ...state, permissionMode: "default" }));
    await vi.waitFor(() => expect(saved).toEqual(["plan", "default"]));
  });

  it("carries whether a run is going, written at each start and end of a run", async () => {
    const store = createStore(createInitialAppState({ model: "model-a", permissionMode: "default" }));
    const broker = new PermissionBroker();
    const listeners: Array<() => void> = [];
    const session = { store, broker, running: false, onRunningChange: (listener: () => void) => void listeners.push(listener) };
    const saved: Array<boolean | undefined> = [];
    carrySessionState(session, async (state) => void saved.push(state.running));
    const flip = (running: boolean) => {
      session.running = running;
      for (const listener of listeners) listener();
    };
    flip(true);
    flip(true);
    flip(false);
    await vi.waitFor(() => expect(saved).toEqual([false, true, false]));
  });
});
