"use client";

import type { PermissionMode } from "@cairn/core/schema";
import { useEffect, useState } from "react";

const modes: { value: PermissionMode; label: string }[] = [
  { value: "default", label: "Ask before edits and commands" },
  { value: "acceptEdits", label: "Accept edits" },
  { value: "plan", label: "Plan (read-only)" },
  { value: "auto", label: "Auto (a classifier decides)" },
  { value: "bypassPermissions", label: "Bypass permissions" },
];

const knownModels = ["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"];

type Props = {
  mode: PermissionMode;
  model: string;
  disabled: boolean;
  onMode(mode: PermissionMode): void;
  onModel(model: string): void;
};

export function ModeModelControls({ mode, model, disabled, onMode, onModel }: Props) {
  const [draft, setDraft] = useState(model);
  useEffect(() => setDraft(model), [model]);
  const commit = () => {
    const next = draft.trim();
    if (next && next !== model) onModel(next);
    else setDraft(model);
  };
  return (
    <div className="mode-model">
      <label>
        <span className="sr-only">Permission mode</span>
        <select data-testid="mode-select" value={mode} disabled={disabled} onChange={(event) => onMode(event.target.value as PermissionMode)}>
          {modes.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      <label className="model-field">
        <span className="sr-only">Model</span>
        <input
          data-testid="model-input"
          list="cairn-models"
          value={draft}
          disabled={disabled}
          spellCheck={false}
          onChange={(event) => setDraft(event.target.value)}
          onBlur={commit}
          onKeyDown={(event) => {
            if (event.key === "Enter") {
              event.preventDefault();
              commit();
            }
          }}
        />
        <datalist id="cairn-models">
          {[model, ...knownModels.filter((known) => known !== model)].map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      </label>
    </div>
  );
}
