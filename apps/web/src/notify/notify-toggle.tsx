"use client";

import type { NotifyPermission } from "./use-attention";

type Props = { enabled: boolean; permission: NotifyPermission; onChange(enabled: boolean): void };

/** Browser notifications while the tab is hidden (kept per browser). */
export function NotifyToggle({ enabled, permission, onChange }: Props) {
  const blocked = enabled && (permission === "denied" || permission === "unsupported");
  return (
    <label
      className="notify-toggle small"
      title="Notify me when the agent needs permission, finishes, or stops on an error while this tab is hidden"
      data-permission={permission}
    >
      <input type="checkbox" data-testid="notify-toggle" checked={enabled} onChange={(event) => onChange(event.target.checked)} /> Notify
      {blocked ? (
        <span className="muted" data-testid="notify-blocked">
          {" "}
          ({permission === "denied" ? "blocked by the browser; the tab title still counts" : "not supported by this browser"})
        </span>
      ) : null}
    </label>
  );
}
