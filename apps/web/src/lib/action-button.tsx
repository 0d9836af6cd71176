import type { ReactNode } from "react";

type ActionButtonProps = {
  testId: string;
  /** Runs on click; a promise it returns is not awaited (the caller tracks its own busy state). */
  onAction: () => unknown;
  disabled?: boolean | undefined;
  className?: string | undefined;
  title?: string | undefined;
  children: ReactNode;
};

/** A plain `type="button"` that starts an action: the buttons of the permission prompt, the plan review and the worktree bar. */
export function ActionButton({ testId, onAction, disabled, className, title, children }: ActionButtonProps) {
  return (
    <button type="button" className={className} data-testid={testId} disabled={disabled} title={title} onClick={() => void onAction()}>
      {children}
    </button>
  );
}
