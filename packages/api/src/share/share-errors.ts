import { TRPCError } from "@trpc/server";

export const shareErrorCodes = ["share_not_found", "rate_limited", "nothing_to_share", "message_not_shared"] as const;
export type ShareErrorCode = (typeof shareErrorCodes)[number];

/** The one message every dead, unknown or malformed share token gets. */
export const SHARE_NOT_FOUND_MESSAGE = "This share link does not exist or is no longer available.";

export class ShareError extends Error {
  override readonly name = "ShareError";
  readonly code: ShareErrorCode;

  constructor(code: ShareErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
  }

  static notFound(): ShareError {
    return new ShareError("share_not_found", SHARE_NOT_FOUND_MESSAGE);
  }

  toTRPCError(): TRPCError {
    const code = this.code === "share_not_found" ? "NOT_FOUND" : this.code === "rate_limited" ? "TOO_MANY_REQUESTS" : "BAD_REQUEST";
    return new TRPCError({ code, message: this.message, cause: this });
  }
}
