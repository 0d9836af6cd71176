import { TranscriptStoreError } from "@cairn/core/node";

/** What a stale owner's append is told of: the store's `fence` and `onFenced` options. */
export type AppendFence = {
  fence?: (sessionId: string) => number | undefined;
  onFenced?: (sessionId: string, generation: number | undefined) => void;
};

/**
 * The lease generation an append names (`fenced`: leases are on): undefined when they are off; refused with code
 * `fenced` when this node holds no lease of the session.
 */
export function appendGeneration(options: AppendFence, sessionId: string, fenced = options.fence !== undefined): number | undefined {
  if (!fenced) return undefined;
  const generation = options.fence?.(sessionId);
  if (generation !== undefined) return generation;
  options.onFenced?.(sessionId, undefined);
  throw new TranscriptStoreError("fenced", `This node does not hold the lease of session ${sessionId}`);
}

/** The refusal of an append whose generation a takeover has replaced (the statement wrote nothing). */
export function staleOwnerRefusal(options: AppendFence, sessionId: string, generation: number | undefined): TranscriptStoreError {
  options.onFenced?.(sessionId, generation);
  return new TranscriptStoreError("fenced", `Session ${sessionId} was taken over by another node (lease generation ${generation} is no longer current)`);
}

/**
 * Lines appended one at a time, in the order written: each resolves once `append` has committed it, a failure is a
 * `TranscriptStoreError` (code `write-failed` unless `append` gave one) and does not stop the next. A line whose text
 * cannot be built is refused before it is queued; after `close` every write is refused.
 */
export function serialAppends(messages: { closed: string; failed: string }, append: (line: string) => Promise<void>) {
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  const settled = () => queue.then(() => undefined);
  return {
    write(build: () => string): Promise<void> {
      if (closed) return Promise.reject(new TranscriptStoreError("closed", messages.closed));
      let line: string;
      try {
        line = build();
      } catch (error) {
        return Promise.reject(error);
      }
      const run = queue.then(async () => {
        try {
          await append(line);
        } catch (error) {
          if (error instanceof TranscriptStoreError) throw error;
          throw new TranscriptStoreError("write-failed", messages.failed, { cause: error });
        }
      });
      queue = run.catch(() => undefined);
      return run;
    },
    /** Every append has committed by the time its promise resolves: flushing is waiting for the queue. */
    flush: settled,
    close(): Promise<void> {
      closed = true;
      return settled();
    },
  };
}
