import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { JsonRpcErrorCode, loadMcpSdk, sdkErrorCode } from "./sdk.ts";

describe("the lazily loaded MCP SDK", () => {
  it("uses the SDK's own error codes", () => {
    expect(JsonRpcErrorCode.RequestTimeout).toBe(ErrorCode.RequestTimeout);
    expect(JsonRpcErrorCode.ConnectionClosed).toBe(ErrorCode.ConnectionClosed);
  });

  it("tells the SDK's errors apart once loaded, and nothing else", async () => {
    const sdk = await loadMcpSdk();
    expect(sdk.McpError).toBe(McpError);
    expect(sdkErrorCode(new McpError(ErrorCode.RequestTimeout, "slow"))).toBe(ErrorCode.RequestTimeout);
    expect(sdkErrorCode(new Error("other"))).toBeUndefined();
    expect(await loadMcpSdk()).toBe(sdk);
  });
});
