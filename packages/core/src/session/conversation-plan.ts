import type { NodeKeys } from "./id-keys.ts";
import {
  FLAG_COMPACT_BOUNDARY,
  FLAG_DROPPED,
  FLAG_SIDECHAIN,
  FLAG_TOOL_RESULT,
  KIND_ASSISTANT,
  KIND_OTHER,
  PARENT_MISSING,
  PARENT_ROOT,
} from "./line-kinds.ts";

export type LoadScope = "all" | "since-last-compact";

export interface PlanOptions {
  scope: LoadScope;
  /** Walk up from this line instead of the last appended message (fork, rewind). */
  leafUuid?: string;
}

/** What pass two reads back: message lines and the checkpoint lines of those messages, each in file order. */
export interface ConversationPlan {
  nodes: Int32Array;
  checkpoints: Int32Array;
  /** Tombstones naming no line: message ids of responses to drop when reading back. */
  droppedResponseIds: ReadonlySet<string>;
}

/** The index as the planner reads it (see transcript-index.ts). */
export interface IndexedLines {
  readonly keys: NodeKeys;
  readonly parent: Int32Array;
  readonly group: Int32Array;
  readonly kind: Uint8Array;
  readonly flags: Uint8Array;
  readonly groupDropped: Uint8Array;
  readonly groupCount: number;
  readonly unresolvedParents: ReadonlyMap<number, string>;
  readonly logicalParents: ReadonlyMap<number, string>;
  readonly pendingTombstones: readonly string[];
  readonly checkpointNode: Int32Array;
  readonly checkpointCount: number;
  readonly unresolvedCheckpoints: ReadonlyMap<number, string>;
  readonly report: { brokenLinks: number; duplicateUuids: number };
}

export class TranscriptIndexError extends Error {
  readonly code: "leaf-not-found";
  constructor(code: "leaf-not-found", message: string) {
    super(message);
    this.name = "TranscriptIndexError";
    this.code = code;
  }
}

/**
 * The lines of the conversation, in file order: the chain from the leaf up through `parentUuid`
 * (and across compact boundaries through `logicalParentUuid`), plus every line of each assistant
 * response on that chain (Claude Code writes one line per content block) and every tool result
 * answering one of those lines (parallel results hang off their own tool_use line, off the chain).
 * Tombstoned lines and responses are walked through but left out; sidechains are left out.
 */
export function planConversation(lines: IndexedLines, options: PlanOptions): ConversationPlan {
  const count = lines.keys.size;
  const droppedResponseIds = new Set<string>();
  const droppedNodes = new Uint8Array(count);
  for (const tombstoneOf of lines.pendingTombstones) {
    const node = lines.keys.find(tombstoneOf);
    if (node >= 0) droppedNodes[node] = 1;
    else droppedResponseIds.add(tombstoneOf);
  }
  const isDropped = (node: number): boolean => {
    const group = lines.group[node]!;
    return (lines.flags[node]! & FLAG_DROPPED) !== 0 || droppedNodes[node] === 1 || (group >= 0 && lines.groupDropped[group] === 1);
  };
  const resolvedParent = (node: number): number => {
    const parent = lines.parent[node]!;
    if (parent !== PARENT_MISSING) return parent;
    const uuid = lines.unresolvedParents.get(node);
    const found = uuid === undefined ? -1 : lines.keys.find(uuid);
    return found >= 0 ? found : PARENT_MISSING;
  };

  // A subagent's own transcript holds only sidechain lines: then the sidechain is the conversation.
  let sidechainMask = FLAG_SIDECHAIN;
  if (!hasMainLine(lines)) sidechainMask = 0;
  const onSidechain = (node: number) => (lines.flags[node]! & sidechainMask) !== 0;

  let leaf = -1;
  if (options.leafUuid !== undefined) {
    leaf = lines.keys.scanFirst(options.leafUuid);
    if (leaf < 0) throw new TranscriptIndexError("leaf-not-found", `No line with uuid ${options.leafUuid} in the transcript`);
  } else {
    for (let node = count - 1; node >= 0 && leaf < 0; node--) {
      if (lines.kind[node] !== KIND_OTHER && !onSidechain(node) && !isDropped(node)) leaf = node;
    }
  }
  if (leaf < 0) return { nodes: new Int32Array(0), checkpoints: new Int32Array(0), droppedResponseIds };

  const chain = walkUp(lines, leaf, resolvedParent, onSidechain);
  let chainLength = chain.length;
  if (options.scope === "since-last-compact") {
    const boundaryAt = chain.findIndex((node) => (lines.flags[node]! & FLAG_COMPACT_BOUNDARY) !== 0);
    if (boundaryAt >= 0) chainLength = boundaryAt + 1;
  }

  const included = new Uint8Array(count);
  const groupOnChain = new Uint8Array(lines.groupCount);
  let firstIncluded = count;
  for (let position = 0; position < chainLength; position++) {
    const node = chain[position]!;
    if (lines.kind[node] === KIND_OTHER || isDropped(node)) continue;
    included[node] = 1;
    firstIncluded = Math.min(firstIncluded, node);
    const group = lines.group[node]!;
    if (group >= 0) groupOnChain[group] = 1;
  }
  const isMainLine = (node: number) => !onSidechain(node) && !isDropped(node);
  for (let node = firstIncluded; node < count; node++) {
    const group = lines.group[node]!;
    if (group >= 0 && groupOnChain[group] === 1 && isMainLine(node)) included[node] = 1;
  }
  for (let node = firstIncluded; node < count; node++) {
    if (included[node] === 1 || (lines.flags[node]! & FLAG_TOOL_RESULT) === 0 || !isMainLine(node)) continue;
    // A result may hang off its tool_use line through lines the conversation skips (progress, attachments).
    let parent = resolvedParent(node);
    for (let hops = 0; parent >= 0 && lines.kind[parent] === KIND_OTHER && hops < 64; hops++) parent = resolvedParent(parent);
    if (parent >= 0 && included[parent] === 1 && lines.kind[parent] === KIND_ASSISTANT) included[node] = 1;
  }
  dropFarDuplicates(lines, included, firstIncluded);

  let selected = 0;
  for (let node = firstIncluded; node < count; node++) selected += included[node]!;
  const nodes = new Int32Array(selected);
  let at = 0;
  for (let node = firstIncluded; node < count; node++) if (included[node] === 1) nodes[at++] = node;
  return { nodes, checkpoints: checkpointsOf(lines, included), droppedResponseIds };
}

/** Leaf-first nodes of the chain; a parent link to a lost line continues at the line before. */
function walkUp(lines: IndexedLines, leaf: number, resolvedParent: (node: number) => number, onSidechain: (node: number) => boolean): Int32Array {
  const visited = new Uint8Array(lines.keys.size);
  const path = new Int32Array(lines.keys.size);
  let length = 0;
  let brokenLinks = 0;
  let node = leaf;
  while (node >= 0 && visited[node] === 0) {
    visited[node] = 1;
    path[length++] = node;
    let next = resolvedParent(node);
    if (next === PARENT_ROOT && (lines.flags[node]! & FLAG_COMPACT_BOUNDARY) !== 0) {
      const logical = lines.logicalParents.get(node);
      if (logical !== undefined) {
        next = lines.keys.findRecent(logical, node, 1024);
        if (next < 0) next = lines.keys.find(logical);
        if (next < 0) next = PARENT_MISSING;
      }
    }
    if (next === PARENT_MISSING) {
      brokenLinks++;
      next = previousMainNode(node, onSidechain);
    }
    node = next;
  }
  lines.report.brokenLinks = brokenLinks;
  return path.subarray(0, length);
}

function previousMainNode(node: number, onSidechain: (node: number) => boolean): number {
  for (let candidate = node - 1; candidate >= 0; candidate--) if (!onSidechain(candidate)) return candidate;
  return PARENT_ROOT;
}

function hasMainLine(lines: IndexedLines): boolean {
  for (let node = lines.keys.size - 1; node >= 0; node--) {
    if (lines.kind[node] !== KIND_OTHER && (lines.flags[node]! & FLAG_SIDECHAIN) === 0) return true;
  }
  return false;
}

/** A line repeating an earlier line's uuid beyond the adjacent-copy window: the first one in the conversation stays. */
function dropFarDuplicates(lines: IndexedLines, included: Uint8Array, from: number): void {
  let selected = 0;
  for (let node = from; node < included.length; node++) selected += included[node]!;
  const seen = lines.keys.localTable(selected);
  for (let node = from; node < included.length; node++) {
    if (included[node] === 1 && seen.insert(node) >= 0) {
      included[node] = 0;
      lines.report.duplicateUuids++;
    }
  }
}

function checkpointsOf(lines: IndexedLines, included: Uint8Array): Int32Array {
  const kept: number[] = [];
  for (let checkpoint = 0; checkpoint < lines.checkpointCount; checkpoint++) {
    let node = lines.checkpointNode[checkpoint]!;
    const uuid = lines.unresolvedCheckpoints.get(checkpoint);
    if (node < 0 && uuid !== undefined) node = lines.keys.find(uuid);
    if (node >= 0 && included[node] === 1) kept.push(checkpoint);
  }
  return Int32Array.from(kept);
}
