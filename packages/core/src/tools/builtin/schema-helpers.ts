import { z } from "zod";

/**
 * Models sometimes send numbers and booleans as strings ("20", "true"). Claude Code accepts them, so
 * these schemas do too; the JSON Schema the model sees still says number / boolean.
 */
export function looseNumber<T extends z.ZodNumber>(schema: T) {
  return z.preprocess((value) => (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value), schema);
}

export function looseBoolean() {
  return z.preprocess((value) => (value === "true" ? true : value === "false" ? false : value), z.boolean());
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(2)} MB`;
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
