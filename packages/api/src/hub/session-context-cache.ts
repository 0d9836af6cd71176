import { slashCommandList, type SkillCatalog } from "@cairn/core";
import type { MemoryView } from "../router/types.ts";
import type { SessionContext } from "../runtime/runtime-types.ts";

/** A live session's system prompt, memory files and skills: made when first needed (the git snapshot is taken then), kept until the session closes. */
export class SessionContextCache {
  private context: Promise<SessionContext> | undefined;
  private readonly make: () => Promise<SessionContext>;

  constructor(make: () => Promise<SessionContext>) {
    this.make = make;
  }

  get(): Promise<SessionContext> {
    this.context ??= this.make();
    return this.context;
  }

  async skills(): Promise<SkillCatalog> {
    return (await this.get()).memory.skills();
  }

  /** What the IDE shows: memory files and their sizes, notices, skills, invalid skill files, slash commands. */
  async memoryView(): Promise<MemoryView> {
    const overview = await (await this.get()).memory.overview();
    return { ...overview, commands: slashCommandList(overview) };
  }

  /** Ends the memory files' watch (nothing when the context was never made). */
  async close(): Promise<void> {
    await this.context?.then((context) => context.memory.close()).catch(() => undefined);
  }
}
