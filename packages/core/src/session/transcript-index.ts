import { sessionMetaLineSchema, type SessionMetaLine } from "../schema/transcript.ts";
import { planConversation, type ConversationPlan, type IndexedLines, type PlanOptions } from "./conversation-plan.ts";
import { NodeKeys } from "./id-keys.ts";
import {
  FLAG_COMPACT_BOUNDARY,
  FLAG_DROPPED,
  FLAG_SIDECHAIN,
  FLAG_TOOL_RESULT,
  KIND_ASSISTANT,
  KIND_OTHER,
  KIND_SYSTEM,
  KIND_USER,
  PARENT_MISSING,
  PARENT_ROOT,
} from "./line-kinds.ts";

export { TranscriptIndexError } from "./conversation-plan.ts";
export type { ConversationPlan, LoadScope, PlanOptions } from "./conversation-plan.ts";

/**
 * Pass one of the tolerant loader: sees every line once and keeps only a compact index of the
 * lines that carry a uuid (typed arrays, ~40 bytes a line, no strings), from which
 * `conversation-plan.ts` picks the lines of the conversation. Pass two reads those back by offset.
 */

export interface LoadReport {
  /** Non-blank lines seen. */
  lines: number;
  /** Lines that are not JSON objects of a known shape, torn tail excluded. */
  malformedLines: number;
  /** The last line was cut short (a crash mid-write) and was skipped. */
  tornTail: boolean;
  /** Well-formed lines of types the conversation skips (`attachment`, `api-request`, `cost-state`, …). */
  unknownLines: number;
  /** Lines repeating the uuid of an earlier line; the first one is kept. */
  duplicateUuids: number;
  /** Lines whose `parentUuid` names no line in the file; the walk continued at the line before them. */
  brokenLinks: number;
  /** Planned lines that failed the message schema when read back. */
  invalidMessages: number;
}

/** Conversation lines are rarely shorter than this (uuids, timestamp, envelope); shorter ones make the columns grow. */
const TYPICAL_MIN_LINE_BYTES = 256;
const MAX_PRESIZED_NODES = 1 << 24;
/** How far back a parent, tombstone or checkpoint target is looked for line by line before the hash table is built. */
const RECENT_LINES = 1024;
/** Adjacent copies of a line (a retried append) are recognised within this many lines. */
const DUPLICATE_WINDOW = 8;
const RECENT_RESPONSES = 64;

export class TranscriptIndex implements IndexedLines {
  readonly keys: NodeKeys;
  parent: Int32Array;
  group: Int32Array;
  offset: Float64Array;
  byteLength: Uint32Array;
  kind: Uint8Array;
  flags: Uint8Array;
  groupDropped = new Uint8Array(1024);
  groupCount = 0;
  readonly unresolvedParents = new Map<number, string>();
  readonly logicalParents = new Map<number, string>();
  /** Tombstones naming nothing recent: resolved when planning (a uuid far back, or a message id). */
  readonly pendingTombstones: string[] = [];
  checkpointOffset = new Float64Array(256);
  checkpointByteLength = new Uint32Array(256);
  checkpointNode = new Int32Array(256);
  checkpointCount = 0;
  readonly unresolvedCheckpoints = new Map<number, string>();

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
  /** From Claude Code's `summary` / `custom-title` lines; the last one wins. */
  titleFromLines: string | undefined;

  private pendingMalformed = false;
  private ended = false;
  /** Most lines hang off the line just before them: a string compare saves a key lookup. */
  private previousUuid: string | undefined;
  private previousNode = -1;
  /** Claude Code writes one line per content block; a response's lines share `message.id`. */
  private readonly recentResponseIds: string[] = [];
  private readonly recentResponseGroups: number[] = [];
  private previousMainResponse: { id: string; group: number } | undefined;
  private previousSidechainResponse: { id: string; group: number } | undefined;

  /**
   * `fileSize` presizes the columns for about the most lines the file could hold. Large zeroed
   * typed arrays are mapped lazily, so unused capacity costs address space rather than memory, and
   * the columns rarely need a grow-and-copy (which would briefly hold both copies).
   */
  constructor(options: { fileSize?: number } = {}) {
    const capacity = Math.min(MAX_PRESIZED_NODES, Math.max(1024, Math.ceil((options.fileSize ?? 0) / TYPICAL_MIN_LINE_BYTES)));
    this.keys = new NodeKeys(capacity);
    this.parent = new Int32Array(capacity);
    this.group = new Int32Array(capacity);
    this.offset = new Float64Array(capacity);
    this.byteLength = new Uint32Array(capacity);
    this.kind = new Uint8Array(capacity);
    this.flags = new Uint8Array(capacity);
  }

  get nodeCount(): number {
    return this.keys.size;
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

  plan(options: PlanOptions): ConversationPlan {
    return planConversation(this, options);
  }

  offsetOf(node: number): number {
    return this.offset[node]!;
  }
  byteLengthOf(node: number): number {
    return this.byteLength[node]!;
  }
  /** The assistant response a line belongs to, or -1. */
  groupOf(node: number): number {
    return this.group[node]!;
  }
  checkpointOffsetOf(checkpoint: number): number {
    return this.checkpointOffset[checkpoint]!;
  }
  checkpointByteLengthOf(checkpoint: number): number {
    return this.checkpointByteLength[checkpoint]!;
  }
  /** Whether `uuid` is the uuid this node was indexed under (a check that a re-read hit the same line). */
  isNode(node: number, uuid: unknown): boolean {
    return typeof uuid === "string" && this.keys.matches(node, uuid);
  }
  /** The first node indexed under `uuid`, or -1. */
  nodeOf(uuid: string): number {
    return this.keys.find(uuid);
  }

  private classify(line: Record<string, unknown>, byteOffset: number, byteLength: number): void {
    switch (line.type) {
      case "user":
      case "assistant":
      case "system":
        this.addMessageLine(line, byteOffset, byteLength);
        return;
      case "tombstone":
        if (typeof line.tombstoneOf === "string") this.addTombstone(line.tombstoneOf);
        else this.report.malformedLines++;
        return;
      case "cairn-session": {
        const parsed = sessionMetaLineSchema.safeParse(line);
        if (!parsed.success) this.report.malformedLines++;
        else this.meta ??= parsed.data;
        return;
      }
      case "cairn-checkpoint":
        if (typeof line.messageUuid === "string" && typeof line.commit === "string") {
          this.addCheckpoint(line.messageUuid, byteOffset, byteLength);
        } else {
          this.report.malformedLines++;
        }
        return;
      case "cairn-hooks":
        // Hook runs are for the timeline; the conversation has no place for them.
        return;
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
    const message = line.message;
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
    if (node >= 0 && typeof message.id === "string") this.group[node] = this.responseGroup(message.id, line.isSidechain === true);
  }

  /**
   * The group of the response `messageId`: the same as the previous response line's on the same
   * chain (main or sidechain, whose lines may interleave), or a new one.
   */
  private responseGroup(messageId: string, sidechain: boolean): number {
    const previous = sidechain ? this.previousSidechainResponse : this.previousMainResponse;
    if (previous !== undefined && previous.id === messageId) return previous.group;
    const group = this.newGroup(messageId);
    if (sidechain) this.previousSidechainResponse = { id: messageId, group };
    else this.previousMainResponse = { id: messageId, group };
    return group;
  }

  private newGroup(messageId: string): number {
    const group = this.groupCount++;
    if (group >= this.groupDropped.length) this.groupDropped = grown(this.groupDropped, new Uint8Array(this.groupDropped.length * 2));
    this.recentResponseIds.push(messageId);
    this.recentResponseGroups.push(group);
    if (this.recentResponseIds.length > RECENT_RESPONSES) {
      this.recentResponseIds.shift();
      this.recentResponseGroups.shift();
    }
    return group;
  }

  /** A tombstone names a line (uuid) or a whole response (message id), almost always one just written. */
  private addTombstone(tombstoneOf: string): void {
    const node = tombstoneOf === this.previousUuid ? this.previousNode : this.keys.findRecent(tombstoneOf, this.keys.size, RECENT_LINES);
    if (node >= 0) {
      this.flags[node] = this.flags[node]! | FLAG_DROPPED;
      return;
    }
    const response = this.recentResponseIds.lastIndexOf(tombstoneOf);
    if (response >= 0) {
      this.groupDropped[this.recentResponseGroups[response]!] = 1;
      return;
    }
    this.pendingTombstones.push(tombstoneOf);
  }

  private addCheckpoint(messageUuid: string, byteOffset: number, byteLength: number): void {
    const checkpoint = this.checkpointCount++;
    if (checkpoint >= this.checkpointNode.length) {
      const capacity = this.checkpointNode.length * 2;
      this.checkpointOffset = grown(this.checkpointOffset, new Float64Array(capacity));
      this.checkpointByteLength = grown(this.checkpointByteLength, new Uint32Array(capacity));
      this.checkpointNode = grown(this.checkpointNode, new Int32Array(capacity));
    }
    const node = messageUuid === this.previousUuid ? this.previousNode : this.keys.findRecent(messageUuid, this.keys.size, RECENT_LINES);
    this.checkpointNode[checkpoint] = node;
    if (node < 0) this.unresolvedCheckpoints.set(checkpoint, messageUuid);
    this.checkpointOffset[checkpoint] = byteOffset;
    this.checkpointByteLength[checkpoint] = byteLength;
  }

  private addNode(line: Record<string, unknown>, kind: number, flags: number, byteOffset: number, byteLength: number): number {
    const uuid = line.uuid as string;
    if (uuid === this.previousUuid || this.keys.findRecent(uuid, this.keys.size, DUPLICATE_WINDOW) >= 0) {
      this.report.duplicateUuids++;
      return -1;
    }
    const node = this.keys.append(uuid);
    this.ensureCapacity(node + 1);
    const parentUuid = line.parentUuid;
    if (typeof parentUuid !== "string") {
      this.parent[node] = PARENT_ROOT;
    } else if (parentUuid === this.previousUuid) {
      this.parent[node] = this.previousNode;
    } else {
      const parent = this.keys.findRecent(parentUuid, node, RECENT_LINES);
      this.parent[node] = parent >= 0 ? parent : PARENT_MISSING;
      if (parent < 0) this.unresolvedParents.set(node, parentUuid);
    }
    this.group[node] = -1;
    this.kind[node] = kind;
    this.flags[node] = flags | (line.isSidechain === true ? FLAG_SIDECHAIN : 0);
    this.offset[node] = byteOffset;
    this.byteLength[node] = byteLength;
    this.previousUuid = uuid;
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
