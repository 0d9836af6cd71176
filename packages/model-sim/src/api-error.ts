/** Anthropic error envelope: `{type: "error", error: {type, message}}`. */
export type ApiErrorBody = { type: "error"; error: { type: string; message: string } };

const errorTypeByStatus: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

const defaultMessageByType: Readonly<Record<string, string>> = {
  overloaded_error: "Overloaded",
  rate_limit_error: "Number of request tokens has exceeded your per-minute rate limit",
  api_error: "Internal server error",
  invalid_request_error: "Invalid request",
};

export function errorTypeForStatus(status: number): string {
  return errorTypeByStatus[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

/** The status a non-streaming request gets for a fault that would have been a mid-stream error event. */
export function statusForErrorType(errorType: string): number {
  for (const [status, type] of Object.entries(errorTypeByStatus)) {
    if (type === errorType) return Number(status);
  }
  return 500;
}

export function apiErrorBody(errorType: string, message?: string): ApiErrorBody {
  return {
    type: "error",
    error: { type: errorType, message: message ?? defaultMessageByType[errorType] ?? `model-sim: injected ${errorType}` },
  };
}
