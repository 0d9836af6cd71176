#!/usr/bin/env node
// Runs the TypeScript sources under plain Node 20 through tsx's loader (no build step).
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/main.ts");
const code = await main(process.argv.slice(2));
// Let pending stdout writes drain before exiting.
process.stdout.write("", () => process.exit(code));
