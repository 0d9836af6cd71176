#!/usr/bin/env node
// The workspace worker process: runs packages/worker/src/worker-main.ts through tsx.
import { register } from "tsx/esm/api";

register();
await import("../src/worker-main.ts");
