/** Byte ↔ text conversion for the file tools, browser-safe (TextDecoder, btoa; no Buffer). */

export type TextEncoding = "utf8" | "utf8-bom" | "utf16le";
export type LineEnding = "LF" | "CRLF";
export type DecodedText = { text: string; encoding: TextEncoding; lineEnding: LineEnding };

const binarySniffBytes = 8192;

/** A NUL byte near the start marks a binary file (what git and ripgrep use too); UTF-16 is text. */
export function looksBinary(bytes: Uint8Array): boolean {
  if (hasUtf16Bom(bytes)) return false;
  const end = Math.min(bytes.byteLength, binarySniffBytes);
  for (let index = 0; index < end; index++) if (bytes[index] === 0) return true;
  return false;
}

function hasUtf16Bom(bytes: Uint8Array): boolean {
  return bytes.byteLength >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe;
}

export function decodeText(bytes: Uint8Array): DecodedText {
  let encoding: TextEncoding = "utf8";
  let text: string;
  if (hasUtf16Bom(bytes)) {
    encoding = "utf16le";
    text = new TextDecoder("utf-16le").decode(bytes.subarray(2));
  } else {
    if (bytes.byteLength >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) encoding = "utf8-bom";
    text = new TextDecoder("utf-8").decode(bytes);
  }
  return { text, encoding, lineEnding: detectLineEnding(text) };
}

/** CRLF when CRLF line breaks outnumber bare LF ones. */
export function detectLineEnding(text: string): LineEnding {
  const crlf = text.split("\r\n").length - 1;
  const lf = text.split("\n").length - 1 - crlf;
  return crlf > lf ? "CRLF" : "LF";
}

export function normalizeLineEndings(text: string): string {
  return text.replaceAll("\r\n", "\n");
}

export function applyLineEnding(text: string, lineEnding: LineEnding): string {
  return lineEnding === "CRLF" ? text.replaceAll("\n", "\r\n") : text;
}

/** Writes text back in the encoding the file had, so a BOM or UTF-16 survives an edit. */
export function encodeText(text: string, encoding: TextEncoding): string | Uint8Array {
  if (encoding === "utf8") return text;
  if (encoding === "utf8-bom") {
    const body = new TextEncoder().encode(text);
    const bytes = new Uint8Array(body.byteLength + 3);
    bytes.set([0xef, 0xbb, 0xbf]);
    bytes.set(body, 3);
    return bytes;
  }
  const bytes = new Uint8Array(2 + text.length * 2);
  bytes.set([0xff, 0xfe]);
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    bytes[2 + index * 2] = unit & 0xff;
    bytes[3 + index * 2] = unit >> 8;
  }
  return bytes;
}

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let index = 0; index < bytes.byteLength; index += chunk) {
    binary += String.fromCharCode(...bytes.subarray(index, index + chunk));
  }
  return btoa(binary);
}

export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** The media type from the file's magic bytes; the extension can lie. */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | undefined {
  const starts = (...signature: number[]) => signature.every((byte, index) => bytes[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (starts(0x47, 0x49, 0x46, 0x38)) return "image/gif";
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return "image/webp";
  return undefined;
}
