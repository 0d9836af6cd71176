import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { SharedSessionPage } from "@/share/shared-session-page";

// The token is the capability: keep it out of Referer headers and search indexes.
export const metadata: Metadata = { title: "Shared session · Cairn", referrer: "no-referrer", robots: { index: false, follow: false } };

/**
 * Anything that cannot be a share token is a 404 without a lookup. `cairn serve` sends a dead token's page here
 * as `/share/-`, so unknown, expired and revoked links answer HTTP 404 too.
 */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,200}$/;

export default async function Page({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  if (!TOKEN_SHAPE.test(token)) notFound();
  return <SharedSessionPage token={token} />;
}
