import type { ClassifierRequestRecord } from "../../schema/permissions.ts";

/** The Bash command as the shell parser saw it: what the classifier judges besides the raw text. */
export type ParsedCommandView = {
  /** Each simple command's words, nested ones (inside substitutions) flagged. */
  commands: Array<{ argv: string[]; nested: boolean }>;
  /** Files the line writes (redirections, tee, dd of=). */
  writes: string[];
  /** Constructs that no rule can vouch for (substitutions, eval, syntax errors, …). */
  problems: string[];
};

/** One action no rule, hook or mode decided, as auto mode's classifier sees it. */
export type ClassifierAction = {
  toolName: string;
  input: unknown;
  /** For Bash: the parsed command. */
  parsedCommand?: ParsedCommandView;
  cwd: string;
  /** What the user asked for so far in this session, oldest first. */
  userRequests: readonly string[];
};

export type ClassifierVerdict = {
  behavior: "allow" | "ask" | "deny";
  reason: string;
  /** The model request that produced the verdict, when one did: its tokens count in the session's usage. */
  request?: ClassifierRequestRecord;
};

export type ClassifierFailureCode = "timeout" | "api_error" | "unparsable" | "aborted";

/** The classifier could not give a verdict; auto mode then asks the user (it fails safe). */
export class ClassifierError extends Error {
  override readonly name = "ClassifierError";
  readonly code: ClassifierFailureCode;
  /** The model request that failed to give a verdict, when one was made (an unparsable answer still used tokens). */
  readonly request: ClassifierRequestRecord | undefined;

  constructor(code: ClassifierFailureCode, message: string, options?: { cause?: unknown; request?: ClassifierRequestRecord }) {
    super(message, options);
    this.code = code;
    this.request = options?.request;
  }
}

/** Auto mode's second opinion: production asks a small model; tests pass fakes. */
export interface ActionClassifier {
  /** Resolves with a verdict or rejects (a `ClassifierError` where the cause is known). */
  classify(action: ClassifierAction, signal: AbortSignal): Promise<ClassifierVerdict>;
}
