import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "@cairn/core/node";

/** Which workspaces the user trusted: project hooks and MCP servers run only in those. */
export interface TrustRepository {
  isTrusted(workspaceRoot: string): Promise<boolean>;
  trust(workspaceRoot: string): Promise<void>;
}

const trustFileSchema = z.object({ trusted: z.array(z.string()) });

/**
 * Workspaces the user has trusted in the web IDE (`$CAIRN_HOME/trusted.json`): the embedded store
 * (distributed mode keeps them in PostgreSQL). A broken file counts as trusting nothing.
 */
export class TrustStore implements TrustRepository {
  readonly file: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(cairnHome: string) {
    this.file = join(cairnHome, "trusted.json");
  }

  async isTrusted(workspaceRoot: string): Promise<boolean> {
    return (await this.read()).includes(workspaceRoot);
  }

  trust(workspaceRoot: string): Promise<void> {
    const run = this.queue.then(async () => {
      const trusted = await this.read();
      if (trusted.includes(workspaceRoot)) return;
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.file, `${JSON.stringify({ trusted: [...trusted, workspaceRoot] }, null, 2)}\n`);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async read(): Promise<string[]> {
    try {
      const parsed = trustFileSchema.safeParse(JSON.parse(await readFile(this.file, "utf8")));
      return parsed.success ? parsed.data.trusted : [];
    } catch {
      return [];
    }
  }
}
