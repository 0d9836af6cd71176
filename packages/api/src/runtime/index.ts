// What a process that runs the agent without serving it needs (`cairn -p`): the runtime alone, without
// the HTTP server, tRPC, terminals or the session index, so their dependencies are not loaded.
export { createRuntime } from "./create-runtime.ts";
export type { Runtime, RuntimeOptions, SessionWiring } from "./runtime-types.ts";
export { checkpointingGate } from "../hub/checkpointing-gate.ts";
