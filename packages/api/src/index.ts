export { createRuntime } from "./runtime/create-runtime.ts";
export type { Runtime, RuntimeOptions, SessionWiring } from "./runtime/create-runtime.ts";
export { resolveModelSource, DEFAULT_MODEL, DEMO_MODEL } from "./runtime/model-source.ts";
export type { ModelSource } from "./runtime/model-source.ts";
export { buildSystemPrompt, CAIRN_SYSTEM_PROMPT } from "./runtime/system-prompt.ts";
