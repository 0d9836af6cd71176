/** The server's domain error code (`error.data.cairn.code`), if the error carries one. */
export function cairnErrorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const data = (error as { data?: unknown }).data;
  if (typeof data !== "object" || data === null) return undefined;
  const cairn = (data as { cairn?: unknown }).cairn;
  if (typeof cairn !== "object" || cairn === null) return undefined;
  const code = (cairn as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

export function trpcErrorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const data = (error as { data?: { code?: unknown } | null }).data;
  return typeof data?.code === "string" ? data.code : undefined;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
