import { pathToFileURL } from "node:url";

const file = process.argv[2];
if (!file) throw new Error("usage: run-one.ts <file.bench.ts>");
const module = (await import(pathToFileURL(file).href)) as { default: () => Promise<void> };
await module.default();
process.exit(0);
