import { serveWorkspace } from "./worker-server.ts";

/**
 * The main of a local workspace worker process (started by createWorkerProcessWorkspace): serves the workspace over
 * the protocol on stdin/stdout until stdin closes. stdout carries the protocol, so anything a library logs goes to
 * stderr instead.
 */
export async function runWorkerProcess(): Promise<void> {
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  await serveWorkspace(process.stdin, process.stdout);
}
