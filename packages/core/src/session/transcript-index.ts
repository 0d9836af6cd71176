import {
  checkpointLineSchema,
  sessionMetaLineSchema,
  type CheckpointLine,
  type SessionMetaLine,
} from "../schema/transcript.ts";
import { IdKeyTable } from "./id-keys.ts";

/**
 * Pass one of the tolerant loader: sees every line once, keeps only a compact index of the lines
 * that carry a uuid (typed arrays, ~50 bytes a line), and plans which lines make up the
 * conversation. The lines themselves are read again, by offset, only for the planned part.
 */

const KIND_USER = 1;
const KIND_ASSISTANT = 2;
const KIND_SYSTEM = 3;
/** A line of a type the conversation skips (`attachment`, `progress`, …) but whose uuid links the chain. */
const KIND_OTHER = 4;

const FLAG_SIDECHAIN = 1;
const FLAG_COMPACT_BOUNDARY = 2;
const FLAG_TOOL_RESULT = 4;

const PARENT_ROOT = -1;
const PARENT_MISSING = -2;

export type LoadScope = "all" | "since-last-compact";

export interface LoadReport {
  /** Non-blank lines seen. */
  lines: number;
  /** Lines that are not JSON objects of a known shape, torn tail excluded. */
  malformedLines: number;
  /** The last line was cut short (a crash mid-write) and was skipped. */
  tornTail: boolean;
  /** Well-formed lines of types the conversation skips (`attachment`, `api-request`, `cost-state`, …). */
  unknownLines: number;
  duplicateUuids: number;
  /** Lines whose `parentUuid` names no line in the file; the walk continued at the line before them. */
  brokenLinks: number;
  /** Planned lines that failed the message schema when read back. */
  invalidMessages: number;
}

export interface PlanOptions {
  scope: LoadScope;
  /** Walk up from this line instead of the last appended message (fork, rewind). */
  leafUuid?: string;
}

export class TranscriptIndexError extends Error {
  readonly code: "leaf-not-found";
  constructor(code: "leaf-not-found", message: string) {
    super(message);
    this.name = "TranscriptIndexError";
    this.code = code;
  }
}

/** No conversation line is shorter than this; sizing columns by it never has to grow them. */
const MIN_INDEXED_LINE_BYTES = 160;
const MAX_PRESIZED_NODES = 1 << 24;

export class TranscriptIndex {
  private readonly uuids: IdKeyTable;
  private readonly messageIds: IdKeyTable;
  private parent: Int32Array;
  private group: Int32Array;
  private offset: Float64Array;
  private byteLength: Uint32Array;
  private kind: Uint8Array;
  private flags: Uint8Array;
  private readonly unresolvedParents = new Map<number, string>();
  private readonly logicalParents = new Map<number, string>();
  private readonly tombstones: string[] = [];
  /** Most lines hang off the line just before them: a string compare saves a key lookup. */
  private previousUuid: string | undefined;
  private previousNode = -1;
  private pendingMalformed = false;
  private ended = false;

  readonly report: LoadReport = {
    lines: 0,
    malformedLines: 0,
    tornTail: false,
    unknownLines: 0,
    duplicateUuids: 0,
    brokenLinks: 0,
    invalidMessages: 0,
  };
  meta: SessionMetaLine | undefined;
  readonly checkpoints: CheckpointLine[] = [];
  /** From Claude Code's `summary` / `custom-title` lines; the last one wins. */
  titleFromLines: string | undefined;

  /**
   * `fileSize` presizes the columns for the most lines the file could hold. Large zeroed typed
   * arrays are mapped lazily, so unused capacity costs address space, not memory, and the
   * columns never need a grow-and-copy that would leave the old copy resident.
   */
  constructor(options: { fileSize?: number } = {}) {
    const capacity = Math.min(MAX_PRESIZED_NODES, Math.max(1024, Math.ceil((options.fileSize ?? 0) / MIN_INDEXED_LINE_BYTES)));
    this.uuids = new IdKeyTable(capacity);
    this.messageIds = new IdKeyTable(capacity / 2);
    this.parent = new Int32Array(capacity);
    this.group = new Int32Array(capacity);
    this.offset = new Float64Array(capacity);
    this.byteLength = new Uint32Array(capacity);
    this.kind = new Uint8Array(capacity);
    this.flags = new Uint8Array(capacity);
  }

  get nodeCount(): number {
    return this.uuids.size;
  }

  /** `text` is one line without its newline; `byteOffset`/`byteLength` locate it in the file. */
  addLine(text: string, byteOffset: number, byteLength: number): void {
    if (this.pendingMalformed) {
      this.report.malformedLines++;
      this.pendingMalformed = false;
    }
    // Lines start with "{"; only a line that does not is checked for being blank.
    if (text.charCodeAt(0) !== 0x7b && text.trim().length === 0) return;
    this.report.lines++;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Undecided until the next line arrives: a bad last line is a torn tail, not a malformed line.
      this.pendingMalformed = true;
      return;
    }
    if (!isRecord(value)) {
      this.pendingMalformed = true;
      return;
    }
    this.classify(value, byteOffset, byteLength);
  }

  /** `endsWithNewline`: a bad last line that was followed by a newline was written whole: malformed, not torn. */
  end(options: { endsWithNewline?: boolean } = {}): LoadReport {
    if (!this.ended && this.pendingMalformed) {
      if (options.endsWithNewline === true) this.report.malformedLines++;
      else this.report.tornTail = true;
    }
    this.pendingMalformed = false;
    this.ended = true;
    return this.report;
  }

  offsetOf(node: number): number {
    return this.offset[node]!;
  }
  byteLengthOf(node: number): number {
    return this.byteLength[node]!;
  }
  /** The node indexed under `uuid`, or -1. */
  nodeOf(uuid: string): number {
    return this.uuids.get(uuid);
  }
  /** The assistant response (message id) a line belongs to, or -1. */
  groupOf(node: number): number {
    return this.group[node]!;
  }
  /** Whether `uuid` is the uuid this node was indexed under (a check that a re-read hit the same line). */
  isNode(node: number, uuid: unknown): boolean {
    return typeof uuid === "string" && this.uuids.get(uuid) === node;
  }
  hasUuid(uuid: string): boolean {
    return this.uuids.get(uuid) >= 0;
  }

  /**
   * The lines of the conversation, in file order: the chain from the leaf up through `parentUuid`
   * (and across compact boundaries through `logicalParentUuid`), plus every line of each assistant
   * response on that chain (Claude Code writes one line per content block) and every tool result
   * answering one of those lines (parallel results hang off their own tool_use line, off the chain).
   * Tombstoned lines and responses are walked through but left out; sidechains are left out.
   */
  plan(options: PlanOptions): Int32Array {
    const count = this.uuids.size;
    const tombstonedNode = new Uint8Array(count);
    const tombstonedGroup = new Uint8Array(this.messageIds.size);
    for (const id of this.tombstones) {
      const node = this.uuids.get(id);
      if (node >= 0) tombstonedNode[node] = 1;
      const group = this.messageIds.get(id);
      if (group >= 0) tombstonedGroup[group] = 1;
    }
    const isDropped = (node: number): boolean => {
      const group = this.group[node]!;
      return tombstonedNode[node] === 1 || (group >= 0 && tombstonedGroup[group] === 1);
    };

    const leaf = options.leafUuid === undefined ? this.lastMessageNode(isDropped) : this.uuids.get(options.leafUuid);
    if (options.leafUuid !== undefined && leaf < 0) {
      throw new TranscriptIndexError("leaf-not-found", `No line with uuid ${options.leafUuid} in the transcript`);
    }
    if (leaf < 0) return new Int32Array(0);

    const { chain, brokenLinks } = this.walkUp(leaf);
    this.report.brokenLinks = brokenLinks;
    let chainLength = chain.length;
    if (options.scope === "since-last-compact") {
      const boundaryAt = chain.findIndex((node) => (this.flags[node]! & FLAG_COMPACT_BOUNDARY) !== 0);
      if (boundaryAt >= 0) chainLength = boundaryAt + 1;
    }

    const included = new Uint8Array(count);
    const groupOnChain = new Uint8Array(this.messageIds.size);
    let firstIncluded = count;
    for (let position = 0; position < chainLength; position++) {
      const node = chain[position]!;
      if (this.kind[node] === KIND_OTHER || isDropped(node)) continue;
      included[node] = 1;
      firstIncluded = Math.min(firstIncluded, node);
      const group = this.group[node]!;
      if (group >= 0) groupOnChain[group] = 1;
    }
    for (let node = firstIncluded; node < count; node++) {
      const group = this.group[node]!;
      if (group < 0 || groupOnChain[group] !== 1) continue;
      if ((this.flags[node]! & FLAG_SIDECHAIN) !== 0 || isDropped(node)) continue;
      included[node] = 1;
    }
    for (let node = firstIncluded; node < count; node++) {
      if (included[node] === 1 || (this.flags[node]! & FLAG_TOOL_RESULT) === 0) continue;
      if ((this.flags[node]! & FLAG_SIDECHAIN) !== 0 || isDropped(node)) continue;
      const parent = this.resolvedParent(node);
      if (parent >= 0 && included[parent] === 1 && this.kind[parent] === KIND_ASSISTANT) included[node] = 1;
    }

    let selected = 0;
    for (let node = firstIncluded; node < count; node++) selected += included[node]!;
    const nodes = new Int32Array(selected);
    let at = 0;
    for (let node = firstIncluded; node < count; node++) if (included[node] === 1) nodes[at++] = node;
    return nodes;
  }

  private lastMessageNode(isDropped: (node: number) => boolean): number {
    for (let node = this.uuids.size - 1; node >= 0; node--) {
      if (this.kind[node] === KIND_OTHER || (this.flags[node]! & FLAG_SIDECHAIN) !== 0) continue;
      if (!isDropped(node)) return node;
    }
    return -1;
  }

  /** Leaf-first list of the nodes on the chain. */
  private walkUp(leaf: number): { chain: Int32Array; brokenLinks: number } {
    const visited = new Uint8Array(this.uuids.size);
    const path = new Int32Array(this.uuids.size);
    let length = 0;
    let brokenLinks = 0;
    let node = leaf;
    while (node >= 0 && visited[node] === 0) {
      visited[node] = 1;
      path[length++] = node;
      let next = this.resolvedParent(node);
      if (next === PARENT_ROOT && (this.flags[node]! & FLAG_COMPACT_BOUNDARY) !== 0) {
        const logical = this.logicalParents.get(node);
        next = logical === undefined ? PARENT_ROOT : this.uuids.get(logical);
        if (logical !== undefined && next < 0) next = PARENT_MISSING;
      }
      if (next === PARENT_MISSING) {
        brokenLinks++;
        next = this.previousMainNode(node);
      }
      node = next;
    }
    return { chain: path.subarray(0, length), brokenLinks };
  }

  private resolvedParent(node: number): number {
    const parent = this.parent[node]!;
    if (parent !== PARENT_MISSING) return parent;
    const pending = this.unresolvedParents.get(node);
    const found = pending === undefined ? -1 : this.uuids.get(pending);
    return found >= 0 ? found : PARENT_MISSING;
  }

  private previousMainNode(node: number): number {
    for (let candidate = node - 1; candidate >= 0; candidate--) {
      if ((this.flags[candidate]! & FLAG_SIDECHAIN) === 0) return candidate;
    }
    return PARENT_ROOT;
  }

  private classify(line: Record<string, unknown>, byteOffset: number, byteLength: number): void {
    switch (line.type) {
      case "user":
      case "assistant":
      case "system":
        this.addMessageLine(line, byteOffset, byteLength);
        return;
      case "tombstone":
        if (typeof line.tombstoneOf === "string") this.tombstones.push(line.tombstoneOf);
        else this.report.malformedLines++;
        return;
      case "cairn-session": {
        const parsed = sessionMetaLineSchema.safeParse(line);
        if (!parsed.success) this.report.malformedLines++;
        else this.meta ??= parsed.data;
        return;
      }
      case "cairn-checkpoint": {
        const parsed = checkpointLineSchema.safeParse(line);
        if (!parsed.success) this.report.malformedLines++;
        else this.checkpoints.push(parsed.data);
        return;
      }
      case "summary":
        if (typeof line.summary === "string") this.titleFromLines = line.summary;
        this.report.unknownLines++;
        return;
      case "custom-title":
        if (typeof line.customTitle === "string") this.titleFromLines = line.customTitle;
        this.report.unknownLines++;
        return;
      default:
        if (typeof line.type !== "string") {
          this.report.malformedLines++;
          return;
        }
        this.report.unknownLines++;
        if (typeof line.uuid === "string") this.addNode(line, KIND_OTHER, 0, byteOffset, byteLength);
    }
  }

  private addMessageLine(line: Record<string, unknown>, byteOffset: number, byteLength: number): void {
    const message = line.message;
    if (typeof line.uuid !== "string") {
      this.report.malformedLines++;
      return;
    }
    if (line.type === "system") {
      if (typeof line.subtype !== "string") {
        this.report.malformedLines++;
        return;
      }
      const boundary = line.subtype === "compact_boundary" ? FLAG_COMPACT_BOUNDARY : 0;
      const node = this.addNode(line, KIND_SYSTEM, boundary, byteOffset, byteLength);
      if (node >= 0 && boundary !== 0 && typeof line.logicalParentUuid === "string") {
        this.logicalParents.set(node, line.logicalParentUuid);
      }
      return;
    }
    if (!isRecord(message) || message.content === undefined) {
      this.report.malformedLines++;
      return;
    }
    if (line.type === "user") {
      const toolResult = Array.isArray(message.content) && message.content.some(isToolResultBlock);
      this.addNode(line, KIND_USER, toolResult ? FLAG_TOOL_RESULT : 0, byteOffset, byteLength);
      return;
    }
    const node = this.addNode(line, KIND_ASSISTANT, 0, byteOffset, byteLength);
    if (node >= 0 && typeof message.id === "string") {
      const group = this.messageIds.insert(message.id);
      this.group[node] = group >= 0 ? group : -1 - group;
    }
  }

  private addNode(
    line: Record<string, unknown>,
    kind: number,
    flags: number,
    byteOffset: number,
    byteLength: number,
  ): number {
    const node = this.uuids.insert(line.uuid as string);
    if (node < 0) {
      this.report.duplicateUuids++;
      return -1;
    }
    this.ensureCapacity(node + 1);
    const parentUuid = line.parentUuid;
    if (typeof parentUuid === "string" && parentUuid === this.previousUuid) {
      this.parent[node] = this.previousNode;
    } else if (typeof parentUuid === "string") {
      const parent = this.uuids.get(parentUuid);
      this.parent[node] = parent >= 0 ? parent : PARENT_MISSING;
      if (parent < 0) this.unresolvedParents.set(node, parentUuid);
    } else {
      this.parent[node] = PARENT_ROOT;
    }
    this.group[node] = -1;
    this.kind[node] = kind;
    this.flags[node] = flags | (line.isSidechain === true ? FLAG_SIDECHAIN : 0);
    this.offset[node] = byteOffset;
    this.byteLength[node] = byteLength;
    this.previousUuid = line.uuid as string;
    this.previousNode = node;
    return node;
  }

  private ensureCapacity(size: number): void {
    if (size <= this.parent.length) return;
    const capacity = this.parent.length * 2;
    this.parent = grown(this.parent, new Int32Array(capacity));
    this.group = grown(this.group, new Int32Array(capacity));
    this.offset = grown(this.offset, new Float64Array(capacity));
    this.byteLength = grown(this.byteLength, new Uint32Array(capacity));
    this.kind = grown(this.kind, new Uint8Array(capacity));
    this.flags = grown(this.flags, new Uint8Array(capacity));
  }
}

function grown<T extends Int32Array | Uint32Array | Float64Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isToolResultBlock(block: unknown): boolean {
  return isRecord(block) && block.type === "tool_result";
}
