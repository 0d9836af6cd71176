/**
 * Sends keystrokes in order, one request at a time: while a send is in flight, further input is joined into
 * the next send. Separate concurrent requests could reach the server out of order and scramble the shell's input.
 */
export function createInputPump(send: (data: string) => Promise<unknown>, onError: (error: unknown) => void) {
  let pending = "";
  let inFlight = false;
  let closed = false;

  const pump = async () => {
    if (inFlight) return;
    inFlight = true;
    try {
      while (pending && !closed) {
        const data = pending;
        pending = "";
        try {
          await send(data);
        } catch (error) {
          onError(error);
        }
      }
    } finally {
      inFlight = false;
    }
  };

  return {
    write(data: string) {
      if (closed || !data) return;
      pending += data;
      void pump();
    },
    close() {
      closed = true;
      pending = "";
    },
  };
}
