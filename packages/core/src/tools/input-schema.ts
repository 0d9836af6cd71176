import { z } from "zod";
import { precomputedInputJsonSchemas } from "./precomputed-input-json-schemas.ts";

/** Every schema made by `toolInputSchema`, by its name. */
const namedSchemas = new Map<string, z.ZodType>();
const schemaNames = new WeakMap<z.ZodType, string>();

/**
 * A built-in tool's input schema, built at its first use. Building zod schemas is a cost every start pays; a start
 * sends the tools' JSON Schemas before any input is validated, and the CLI bundle carries those JSON Schemas
 * precomputed (see `precomputedInputJsonSchemas`), so a `cairn -p` start builds no tool schema at all. `name`
 * (the tool's) keys the precomputed JSON Schema and must be unique.
 */
export function toolInputSchema<Schema extends z.ZodType>(name: string, build: () => Schema): z.ZodLazy<Schema> {
  if (namedSchemas.has(name)) throw new Error(`a tool input schema named ${name} exists already`);
  const schema = z.lazy(build);
  namedSchemas.set(name, schema);
  schemaNames.set(schema, name);
  return schema;
}

/** The JSON Schema the model sees for a tool's input schema, derived from the zod schema. */
export function inputJsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  // As Claude Code sends them: the model should not invent parameters.
  if (jsonSchema.type === "object" && jsonSchema.additionalProperties === undefined) jsonSchema.additionalProperties = false;
  return jsonSchema;
}

/** The precomputed JSON Schema of a schema made by `toolInputSchema`, when this build carries one. */
export function precomputedInputJsonSchema(schema: z.ZodType): Record<string, unknown> | undefined {
  const name = schemaNames.get(schema);
  return name === undefined ? undefined : precomputedInputJsonSchemas[name];
}

/** The JSON Schema of every schema made by `toolInputSchema` in the modules loaded so far, by name: what the bundle's build precomputes. */
export function namedInputJsonSchemas(): Record<string, Record<string, unknown>> {
  return Object.fromEntries([...namedSchemas].map(([name, schema]) => [name, inputJsonSchemaOf(schema)]));
}
