import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinTools } from "./builtin/index.ts";
import { inputJsonSchemaOf, namedInputJsonSchemas, precomputedInputJsonSchema, toolInputSchema } from "./input-schema.ts";
import { toApiTool } from "../model/request.ts";

describe("toolInputSchema", () => {
  it("builds the schema at its first use only", () => {
    let built = 0;
    const schema = toolInputSchema("InputSchemaTestLazy", () => {
      built++;
      return z.strictObject({ path: z.string() });
    });
    expect(built).toBe(0);
    expect(schema.safeParse({ path: "a" }).success).toBe(true);
    expect(schema.safeParse({ path: 1 }).success).toBe(false);
    expect(built).toBe(1);
  });

  it("refuses a second schema under a name in use", () => {
    toolInputSchema("InputSchemaTestTwice", () => z.object({}));
    expect(() => toolInputSchema("InputSchemaTestTwice", () => z.object({}))).toThrow(/exists already/);
  });

  it("lists the JSON Schema of every named schema, as the model sees it (no extra parameters)", () => {
    const schemas = namedInputJsonSchemas();
    for (const tool of builtinTools()) expect(schemas[tool.name], tool.name).toEqual(toApiTool(tool).input_schema);
    expect(schemas.Read).toMatchObject({ type: "object", additionalProperties: false, required: ["file_path"] });
  });

  it("has nothing precomputed in the sources: the JSON Schema is derived from the zod schema", () => {
    const [read] = builtinTools();
    expect(precomputedInputJsonSchema(read!.inputSchema)).toBeUndefined();
    expect(toApiTool(read!).input_schema).toEqual(inputJsonSchemaOf(read!.inputSchema));
  });
});
