import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@cairn/api/router";

export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

export type SessionSnapshot = RouterOutputs["session"]["get"];
export type TreeResult = RouterOutputs["workspace"]["tree"];
export type TreeEntry = TreeResult["entries"][number];
export type PermissionAnswer = RouterInputs["permission"]["respond"]["answer"];

type Yielded<T> = T extends AsyncIterable<infer Item> ? Item : never;
/** What `session.events` yields, unwrapped from its tracked envelope. */
export type SessionEvent = Yielded<RouterOutputs["session"]["events"]>["data"];
export type WorkspaceChange = Yielded<RouterOutputs["workspace"]["watch"]>;
