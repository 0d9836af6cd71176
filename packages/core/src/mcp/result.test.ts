import { describe, expect, it } from "vitest";
import { mcpResultToContent } from "./result.ts";
import { TINY_PNG } from "./test-server.ts";

describe("MCP results as tool_result content", () => {
  it("joins text-only results into one string", () => {
    expect(
      mcpResultToContent(
        {
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
        "s",
      ),
    ).toBe("a\nb");
  });

  it("passes images through as image blocks beside the text", () => {
    const content = mcpResultToContent(
      {
        content: [
          { type: "text", text: "look:" },
          { type: "image", data: TINY_PNG, mimeType: "image/png" },
        ],
      },
      "s",
    );
    expect(content).toEqual([
      { type: "text", text: "look:" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: TINY_PNG } },
    ]);
  });

  it("notes images of a type the API cannot take, and audio", () => {
    const content = mcpResultToContent(
      {
        content: [
          { type: "image", data: "AAAA", mimeType: "image/tiff" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        ],
      },
      "srv",
    );
    expect(content).toBe(
      "[srv returned an image of type image/tiff (3 bytes), which cannot be shown]\n[srv returned audio of type audio/wav (3 bytes), which cannot be played here]",
    );
  });

  it("passes embedded resources through: text as text, image blobs as images, other blobs as a note", () => {
    const content = mcpResultToContent(
      {
        content: [
          { type: "resource", resource: { uri: "file:///a.txt", text: "hello" } },
          { type: "resource", resource: { uri: "file:///a.png", blob: TINY_PNG, mimeType: "image/png" } },
          { type: "resource", resource: { uri: "file:///a.zip", blob: "AAAA", mimeType: "application/zip" } },
          { type: "resource_link", uri: "file:///b.txt", name: "b.txt", description: "the other file" },
        ],
      },
      "files",
    );
    expect(content).toEqual([
      { type: "text", text: "[Resource from files at file:///a.txt]\nhello" },
      { type: "text", text: "[Resource from files at file:///a.png]" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: TINY_PNG } },
      { type: "text", text: "[Resource from files at file:///a.zip] binary content of type application/zip (3 bytes)" },
      { type: "text", text: "[Resource link: b.txt] file:///b.txt (the other file)" },
    ]);
  });

  it("shows structured content when there is no content, and says so when there is nothing", () => {
    expect(mcpResultToContent({ content: [], structuredContent: { sum: 3 } }, "s")).toBe('{"sum":3}');
    expect(mcpResultToContent({ content: [] }, "s")).toBe("(no content)");
    expect(mcpResultToContent({ content: [], isError: true }, "s")).toBe("s reported an error without details.");
  });
});
