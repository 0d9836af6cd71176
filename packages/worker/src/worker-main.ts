// Entry point of the workspace worker process (started by createWorkerProcessWorkspace via bin/worker.js).
// stdout carries the protocol, so anything a library logs goes to stderr instead.
import { serveWorkspace } from "./process/worker-server.ts";

console.log = console.error;
console.info = console.error;
console.debug = console.error;

await serveWorkspace(process.stdin, process.stdout);
process.exit(0);
