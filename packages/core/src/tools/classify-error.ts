/**
 * A short, safe class for a tool error, for the timeline and telemetry: an errno code (`Error:ENOENT`),
 * a named error class, or plain `Error`. Never the message, which may hold paths or secrets.
 */
export function classifyToolError(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z0-9_]+$/.test(code)) return `Error:${code}`;
    if (error instanceof Error && error.name && error.name !== "Error" && error.name.length > 3) {
      const tag = typeof code === "string" && code.length <= 40 ? `:${code}` : "";
      return `${error.name.slice(0, 60)}${tag}`;
    }
  }
  return "Error";
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
