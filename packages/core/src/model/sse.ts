export type SseMessage = { event: string | null; data: string };

/**
 * Splits a Server-Sent Events body into messages, a network chunk at a time: every message that a
 * chunk completes is returned together, so a consumer pays one await per chunk, not per event.
 * Follows the SSE rules the API relies on: `event:` and `data:` fields (several data lines joined
 * with "\n"), comment lines starting with ":", blank line ends a message, CRLF or LF line ends.
 */
export class SseDecoder {
  private readonly decoder = new TextDecoder();
  private pending = "";
  private event: string | null = null;
  private data: string[] = [];

  push(chunk: Uint8Array): SseMessage[] {
    this.pending += this.decoder.decode(chunk, { stream: true });
    return this.drain(false);
  }

  end(): SseMessage[] {
    this.pending += this.decoder.decode();
    return this.drain(true);
  }

  private drain(final: boolean): SseMessage[] {
    const messages: SseMessage[] = [];
    let start = 0;
    while (true) {
      const newline = this.pending.indexOf("\n", start);
      if (newline === -1) break;
      const end = newline > start && this.pending.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      this.line(this.pending.slice(start, end), messages);
      start = newline + 1;
    }
    this.pending = this.pending.slice(start);
    if (final) {
      if (this.pending) this.line(this.pending, messages);
      this.pending = "";
      this.line("", messages);
    }
    return messages;
  }

  private line(line: string, messages: SseMessage[]): void {
    if (line === "") {
      if (this.event !== null || this.data.length > 0) messages.push({ event: this.event, data: this.data.join("\n") });
      this.event = null;
      this.data = [];
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ":" comment
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
  }
}
