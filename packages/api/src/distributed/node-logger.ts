import { pino, type DestinationStream, type Logger } from "pino";

export type NodeLogger = Logger;

/**
 * The node's structured log (pino): one JSON object per line on stderr, each carrying the node id, the
 * pid, an ISO time and the level as a word, so a log collector can tell the nodes of a cluster apart.
 * Written synchronously, so the last lines before a crash are not lost in a buffer.
 */
export function createNodeLogger(nodeId: string, destination?: DestinationStream): NodeLogger {
  return pino(
    {
      base: { nodeId, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ fd: 2, sync: true }),
  );
}
