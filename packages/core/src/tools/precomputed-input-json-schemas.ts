/**
 * The built-in tools' input JSON Schemas, by the name given to `toolInputSchema`. Empty in the sources, where they are
 * derived from the zod schemas at their first use; the CLI bundle's build (packages/cli/build.mjs) replaces this module
 * with the ones `namedInputJsonSchemas` derives from these very sources.
 */
export const precomputedInputJsonSchemas: Readonly<Record<string, Record<string, unknown>>> = {};
