"use client";

import { useMutation } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/client";
import { forgetBrowserKey } from "@/trpc/browser-key";

/** Revokes every browser's sign-in, this one's too; the printed link signs in again. */
export function SignOutEverywhere() {
  const trpc = useTRPC();
  const signOut = useMutation(
    trpc.auth.signOutEverywhere.mutationOptions({
      onSuccess: () => {
        forgetBrowserKey();
        window.location.assign("/");
      },
    }),
  );
  return (
    <button
      type="button"
      className="small"
      data-testid="sign-out-everywhere"
      disabled={signOut.isPending}
      title="Sign every browser out of this server; open the link cairn serve printed to sign in again"
      onClick={() => {
        if (window.confirm("Sign out every browser, this one included? Open the link `cairn serve` printed to sign in again.")) signOut.mutate();
      }}
    >
      Sign out everywhere
    </button>
  );
}
