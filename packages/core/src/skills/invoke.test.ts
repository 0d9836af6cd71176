import { describe, expect, it } from "vitest";
import { createInitialAppState, type AppState } from "../state/app-state.ts";
import type { SkillDefinition } from "./definition.ts";
import { revokeSkillTools, useSkillModel } from "./invoke.ts";

function holder(model = "claude-sonnet-5-5") {
  let state: AppState = createInitialAppState({ model, sessionAllowRules: ["Read"] });
  return {
    getAppState: () => state,
    setAppState: (update: (current: AppState) => AppState) => {
      state = update(state);
    },
  };
}

const skill = (model?: string) => ({ name: "quick", model }) as unknown as SkillDefinition;

describe("a skill's model", () => {
  it("resolves the alias into skillModel, and revoking takes it back with the granted rules", () => {
    const state = holder();
    expect(useSkillModel(skill("haiku"), state)).toBe("claude-haiku-5-5");
    expect(state.getAppState().skillModel).toBe("claude-haiku-5-5");
    state.setAppState((current) => ({ ...current, sessionAllowRules: [...current.sessionAllowRules, "Write"] }));
    revokeSkillTools(["Write"], state.setAppState);
    expect(state.getAppState().skillModel).toBeUndefined();
    expect(state.getAppState().sessionAllowRules).toEqual(["Read"]);
    expect(state.getAppState().model).toBe("claude-sonnet-5-5");
  });

  it("changes nothing for a skill without a model, with inherit, or naming the session's model", () => {
    const state = holder();
    const before = state.getAppState();
    expect(useSkillModel(skill(undefined), state)).toBeUndefined();
    expect(useSkillModel(skill("inherit"), state)).toBeUndefined();
    expect(useSkillModel(skill("sonnet"), state)).toBeUndefined();
    revokeSkillTools([], state.setAppState);
    expect(state.getAppState()).toBe(before);
  });
});
