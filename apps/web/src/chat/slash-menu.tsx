"use client";

import type { RouterOutputs } from "@/trpc/types";

export type SlashCommand = RouterOutputs["memory"]["get"]["commands"][number];

/** The commands a partly typed `/name` may complete to; none once arguments are being typed. */
export function slashMatches(text: string, commands: readonly SlashCommand[]): SlashCommand[] {
  const match = /^\/([\w.:-]*)$/.exec(text);
  if (!match) return [];
  const typed = (match[1] ?? "").toLowerCase();
  return commands.filter((command) => command.name.toLowerCase().startsWith(typed));
}

type Props = { matches: readonly SlashCommand[]; selected: number; onPick(command: SlashCommand): void };

/** The completion list above the chat input while a slash command is being typed. */
export function SlashMenu({ matches, selected, onPick }: Props) {
  return (
    <ul className="slash-menu" data-testid="slash-menu" role="listbox" aria-label="Slash commands">
      {matches.map((command, index) => (
        <li
          key={command.name}
          role="option"
          aria-selected={index === selected}
          className={index === selected ? "selected" : undefined}
          data-testid="slash-item"
          data-name={command.name}
          // Keep the focus in the textarea.
          onMouseDown={(event) => {
            event.preventDefault();
            onPick(command);
          }}
        >
          <span className="slash-name">/{command.name}</span>
          {command.argumentHint ? <span className="slash-hint"> {command.argumentHint}</span> : null}
          <span className="slash-description">{command.description}</span>
          {command.kind !== "builtin" ? <span className="slash-kind">{command.kind}</span> : null}
        </li>
      ))}
    </ul>
  );
}
