/** Codes the transcript index stores per line (one byte each for kind and flags). */
export const KIND_USER = 1;
export const KIND_ASSISTANT = 2;
export const KIND_SYSTEM = 3;
/** A line of a type the conversation skips (`attachment`, `progress`, …) but whose uuid links the chain. */
export const KIND_OTHER = 4;

export const FLAG_SIDECHAIN = 1;
export const FLAG_COMPACT_BOUNDARY = 2;
export const FLAG_TOOL_RESULT = 4;
/** Named by a tombstone. */
export const FLAG_DROPPED = 8;

export const PARENT_ROOT = -1;
/** The line names a parent not found near it; looked up again (in the whole file) when planning. */
export const PARENT_MISSING = -2;
