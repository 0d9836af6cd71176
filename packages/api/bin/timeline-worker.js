// The timeline worker thread from the TypeScript sources (tests, CAIRN_DEV=1); the CLI bundle has its own
// compiled copy (dist/timeline-worker.cjs) and never loads this file.
import { register } from "tsx/esm/api";

register();
await import("../src/timeline/timeline-worker-main.ts");
