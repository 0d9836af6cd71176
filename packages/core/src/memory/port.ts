/** What memory and skill discovery need from the file system; Node's lives in `core/src/node/memory-fs.ts`. */
export type MemoryFs = {
  /** Modification time of a regular file or directory, or null when nothing is there. */
  stat(path: string): Promise<{ mtimeMs: number; isDirectory: boolean } | null>;
  /**
   * Modification times of many paths in one call (null where nothing is there): the check before every
   * request asks once for everything it watches, instead of one asynchronous stat per path.
   */
  mtimes(paths: readonly string[]): Promise<Array<number | null>>;
  /** The text of a regular file, or null when it does not exist or cannot be read. */
  readText(path: string): Promise<string | null>;
  /** Names of the subdirectories of `path` (symlinks to directories included), or null when it is not a directory. */
  listDirectories(path: string): Promise<string[] | null>;
  /** Names of the regular files in `path`, or null when it is not a directory. */
  listFiles(path: string): Promise<string[] | null>;
  /** The path with symlinks followed, or null when it does not exist. */
  realPath(path: string): Promise<string | null>;
  /**
   * Watches `paths` (files and directories, present or not) for changes, where the platform can: the check
   * before each request then asks the watch instead of the file system. Null (or absent) when it cannot;
   * then every check stats the paths.
   */
  watch?(paths: readonly string[]): MemoryWatch | null;
};

/** A watch over the paths a load looked at. */
export type MemoryWatch = {
  /** Whether anything under the watched paths may have changed since the watch began (changes already made when called count). */
  changed(): Promise<boolean>;
  close(): void;
};

export const memoryKinds = ["user", "project", "local", "nested"] as const;
export type MemoryKind = (typeof memoryKinds)[number];

/** One memory file as the model gets it. */
export type MemoryFile = {
  path: string;
  kind: MemoryKind;
  /** The text sent (cut when the file is too long). */
  content: string;
  /** Characters in the file on disk. */
  chars: number;
  truncated: boolean;
  /** The file whose `@path` import brought this one in. */
  importedFrom?: string;
};

export const memoryNoticeCodes = ["memory_import_missing", "memory_import_cycle", "memory_import_depth", "memory_import_refused", "memory_truncated"] as const;
export type MemoryNoticeCode = (typeof memoryNoticeCodes)[number];
export type MemoryNotice = { code: MemoryNoticeCode; path: string; message: string };

/** Memory files longer than this are cut, with a notice to the user. */
export const MAX_MEMORY_FILE_CHARS = 40_000;
/** `@path` imports are followed at most this many levels below the file that starts the chain. */
export const MAX_IMPORT_DEPTH = 5;
