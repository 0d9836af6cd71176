import { StringDecoder } from "node:string_decoder";

/**
 * Finds a command's end marker (`__CAIRN_END_<nonce>_<status>_<cwd>` and a NUL, which no path holds)
 * in one output stream, passing the text before it through as it arrives and holding back only what
 * could be the start of the marker. The cwd travels in the output, not in a file: the host never
 * reads a path that the sandboxed shell could have replaced with a link.
 */
export class EndMarkerScanner {
  private readonly decoder = new StringDecoder("utf8");
  private readonly prefix: string;
  private held = "";
  private finished = false;

  constructor(nonce: string) {
    this.prefix = `__CAIRN_END_${nonce}_`;
  }

  /** The shell code that prints the marker; `withCwd` adds the shell's physical working directory. */
  static markerCommand(nonce: string, statusVariable: string, withCwd: boolean): string {
    const cwd = withCwd ? '"$(builtin pwd -P)"' : "''";
    return `builtin printf '__CAIRN_END_%s_%d_%s\\0' '${nonce}' "$${statusVariable}" ${cwd}`;
  }

  get done(): boolean {
    return this.finished;
  }

  /** Returns the text to pass on and, once the marker is complete, the exit status and cwd it carries. */
  push(chunk: Buffer): { text: string; status?: number; cwd?: string } {
    if (this.finished) return { text: "" };
    const text = this.held + this.decoder.write(chunk);
    const start = text.indexOf(this.prefix);
    if (start !== -1) {
      const tail = /^(\d+)_([^\0]*)\0/.exec(text.slice(start + this.prefix.length));
      if (tail?.[1] !== undefined) {
        this.finished = true;
        this.held = "";
        return { text: text.slice(0, start), status: Number(tail[1]), cwd: tail[2] ?? "" };
      }
      this.held = text.slice(start);
      return { text: text.slice(0, start) };
    }
    const keep = partialPrefixLength(text, this.prefix);
    this.held = text.slice(text.length - keep);
    return { text: text.slice(0, text.length - keep) };
  }

  /** What is left when the stream ends without a marker. */
  flush(): string {
    const rest = this.held + this.decoder.end();
    this.held = "";
    return rest;
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of `prefix`. */
function partialPrefixLength(text: string, prefix: string): number {
  const longest = Math.min(text.length, prefix.length - 1);
  for (let length = longest; length > 0; length -= 1) {
    if (prefix.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}

/** Keeps the first `limit` characters of a stream; reports what it kept so it can be streamed on. */
export class CappedText {
  private readonly limit: number;
  private value = "";
  private cut = false;

  constructor(limit: number) {
    this.limit = limit;
  }

  append(text: string): string {
    if (text === "") return "";
    const room = this.limit - this.value.length;
    if (room <= 0) {
      this.cut = true;
      return "";
    }
    const kept = text.length <= room ? text : text.slice(0, room);
    if (kept.length < text.length) this.cut = true;
    this.value += kept;
    return kept;
  }

  get text(): string {
    return this.value;
  }

  get truncated(): boolean {
    return this.cut;
  }
}
