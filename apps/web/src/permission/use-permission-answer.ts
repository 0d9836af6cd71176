import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import type { PermissionAnswer } from "@/trpc/types";

/**
 * Sends the answer to a permission request: busy until it is accepted (the card then goes away), or
 * showing why it failed and letting the user answer again.
 */
export function usePermissionAnswer(onRespond: (answer: PermissionAnswer) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const answer = async (value: PermissionAnswer) => {
    setBusy(true);
    setError(null);
    try {
      await onRespond(value);
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
  };
  return { busy, error, answer };
}
