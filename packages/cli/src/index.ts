export { main } from "./main.ts";
export { cliVersion } from "./version.ts";
