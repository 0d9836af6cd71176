export { main, cliVersion } from "./main.ts";
