// The entry of the local workspace worker's own bundle (dist/worker.cjs, started through bin/worker.js): the worker's
// code alone, a fraction of the CLI bundle, so a worker child is up in a few tens of milliseconds.
export { runWorkerProcess as main } from "@cairn/worker/process-main";
