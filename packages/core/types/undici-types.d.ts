// The runtime-neutral build of core (tsconfig.json) has no Node types. @anthropic-ai/sdk's declarations import
// `undici-types` when it is installed, and undici-types pulls in @types/node, which would make every Node global
// visible here again. This empty module stands in for it; the SDK's types fall back to the web platform's fetch types.
export {};
