export { startModelSim } from "./model-sim.ts";
export type { ModelSim, ModelSimOptions, RecordedRequest } from "./model-sim.ts";
export {
  faultSchema,
  parseScenario,
  ScenarioError,
  scenarioSchema,
  scriptedBlockSchema,
  turnSchema,
} from "./scenario.ts";
export type { Fault, Scenario, ScriptedBlock, ScriptedUsage, StopReason, Turn } from "./scenario.ts";
export { DEMO_PREFIX } from "./demo-model.ts";
export type { SimMode } from "./messages-handler.ts";
