import type { CompactMetadata } from "../schema/messages.ts";

export type CompactTrigger = CompactMetadata["trigger"];
