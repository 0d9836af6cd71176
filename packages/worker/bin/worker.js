#!/usr/bin/env node
// The workspace worker process from the TypeScript sources, through tsx (development and the worker's own tests).
// `cairn` starts packages/cli/bin/worker.js instead, which runs the bundled worker.
import { register } from "tsx/esm/api";

register();
const { runWorkerProcess } = await import("../src/process/worker-process-main.ts");
await runWorkerProcess();
process.exit(0);
