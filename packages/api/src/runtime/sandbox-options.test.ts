import { describe, expect, it } from "vitest";
import { sandboxOptionsFromSettings } from "./sandbox-options.ts";

describe("sandboxOptionsFromSettings", () => {
  it("is on unless the settings turn it off, and always hides Cairn's own state", () => {
    expect(sandboxOptionsFromSettings({}, "/home/me/.cairn")).toEqual({ enabled: true, denyRead: ["/home/me/.cairn"] });
    expect(sandboxOptionsFromSettings({ enabled: false }, "/c")).toEqual({ enabled: false, denyRead: ["/c"] });
  });

  it("passes the network settings as given and leaves out what the worker does not take", () => {
    const options = sandboxOptionsFromSettings({ allowNetwork: false, allowedDomains: ["*.npmjs.org"], autoAllowBashIfSandboxed: true }, "/c");
    expect(options).toEqual({ enabled: true, allowNetwork: false, allowedDomains: ["*.npmjs.org"], denyRead: ["/c"] });
  });
});
