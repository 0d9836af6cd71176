/**
 * Collects streamed command output within a character budget, keeping the beginning and the end
 * (where build errors and test summaries are) and counting what was dropped in between.
 */
export class OutputAccumulator {
  readonly #half: number;
  #head = "";
  #tail = "";
  #dropped = 0;
  #received = 0;

  constructor(maxChars: number) {
    this.#half = Math.max(1, Math.floor(maxChars / 2));
  }

  get receivedAny(): boolean {
    return this.#received > 0;
  }

  get truncated(): boolean {
    return this.#dropped > 0;
  }

  append(text: string): void {
    this.#received += text.length;
    let rest = text;
    if (this.#head.length < this.#half) {
      const room = this.#half - this.#head.length;
      this.#head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest === "") return;
    this.#tail += rest;
    if (this.#tail.length > this.#half) {
      this.#dropped += this.#tail.length - this.#half;
      this.#tail = this.#tail.slice(-this.#half);
    }
  }

  text(): string {
    if (this.#dropped === 0) return this.#head + this.#tail;
    return `${this.#head}\n\n... [${this.#dropped} characters of output truncated] ...\n\n${this.#tail}`;
  }
}
