import { describe, expect, it, vi } from "vitest";
import { createInputPump } from "./input-pump.ts";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe("terminal input pump", () => {
  it("sends one request at a time, joining what was typed meanwhile, in order", async () => {
    const sent: string[] = [];
    const gates: ReturnType<typeof deferred>[] = [];
    const pump = createInputPump(
      async (data) => {
        sent.push(data);
        const gate = deferred();
        gates.push(gate);
        await gate.promise;
      },
      () => undefined,
    );
    pump.write("l");
    pump.write("s");
    pump.write("\r");
    expect(sent).toEqual(["l"]);
    gates[0]!.resolve();
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    expect(sent).toEqual(["l", "s\r"]);
    gates[1]!.resolve();
  });

  it("keeps going after a failed send and reports it", async () => {
    const errors: unknown[] = [];
    const sent: string[] = [];
    const pump = createInputPump(
      async (data) => {
        sent.push(data);
        if (data === "a") throw new Error("lost");
      },
      (error) => errors.push(error),
    );
    pump.write("a");
    pump.write("b");
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    expect(sent).toEqual(["a", "b"]);
    expect(errors).toHaveLength(1);
  });

  it("sends nothing after close", async () => {
    const sent: string[] = [];
    const pump = createInputPump(
      async (data) => void sent.push(data),
      () => undefined,
    );
    pump.close();
    pump.write("x");
    await Promise.resolve();
    expect(sent).toEqual([]);
  });
});
