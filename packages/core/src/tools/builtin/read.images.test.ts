import { describe, expect, it } from "vitest";
import { createMemoryWorkspace } from "../../testing/memory-workspace.ts";
import { createReadTool, readLimits } from "./read.ts";
import { expectResult, runTool, toolContext } from "./tool-test-support.ts";

const pngHeader = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const read = createReadTool();

function png(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set(pngHeader);
  return bytes;
}

describe("Read: images", () => {
  it("returns a PNG as a base64 image block", async () => {
    const bytes = png(16);
    const workspace = createMemoryWorkspace({ "logo.png": bytes });
    const run = expectResult(await runTool(read, { file_path: "/workspace/logo.png" }, toolContext(workspace)));
    const base64 = btoa(String.fromCharCode(...bytes));
    expect(run.content).toEqual([{ type: "image", source: { type: "base64", media_type: "image/png", data: base64 } }]);
    expect(run.result.output).toEqual({ type: "image", file: { base64, type: "image/png", originalSize: 16 } });
  });

  it("takes the media type from the bytes, not the extension", async () => {
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0]);
    const workspace = createMemoryWorkspace({ "photo.png": jpeg });
    const run = expectResult(await runTool(read, { file_path: "/workspace/photo.png" }, toolContext(workspace)));
    expect(run.result.output).toMatchObject({ type: "image", file: { type: "image/jpeg" } });
  });

  it("refuses an image over 3.75 MB with the size and the limit", async () => {
    const workspace = createMemoryWorkspace({ "huge.png": png(readLimits.maxImageBytes + 1) });
    const run = expectResult(await runTool(read, { file_path: "/workspace/huge.png" }, toolContext(workspace)));
    expect(run.isError).toBe(true);
    expect(run.content).toBe("Image file is too large (3.75 MB). The maximum image size is 3.75 MB; resize or crop it first, for example with the Bash tool.");
  });

  it("accepts an image of exactly 3.75 MB", async () => {
    const workspace = createMemoryWorkspace({
      "edge.webp": (() => {
        const bytes = new Uint8Array(readLimits.maxImageBytes);
        bytes.set([0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x45, 0x42, 0x50]);
        return bytes;
      })(),
    });
    const run = expectResult(await runTool(read, { file_path: "/workspace/edge.webp" }, toolContext(workspace)));
    expect(run.result.output).toMatchObject({ type: "image", file: { type: "image/webp", originalSize: readLimits.maxImageBytes } });
  });

  it("says so when a file named like an image holds something else", async () => {
    const workspace = createMemoryWorkspace({ "fake.gif": "not an image" });
    const run = expectResult(await runTool(read, { file_path: "/workspace/fake.gif" }, toolContext(workspace)));
    expect(run.isError).toBe(true);
    expect(run.content).toBe("/workspace/fake.gif does not contain a PNG, JPEG, GIF or WEBP image, although its name says so.");
  });
});
